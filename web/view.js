// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Live view of `rtmb serve --view`: draws the mechanism with three.js from the `scene` message
// and moves it with every `frame` (docs/protocol.md "Live view"), and charts drift, energy, step
// time and latency (web/charts.js). Body models are drawn as bodies, each a star of links from
// its centre of mass to the points where its joints attach (a beam body as its deformed axis);
// built-in mechanisms as bars between
// their joint points, whose positions every frame carries (rtmb/models/joint_points.hpp). The
// camera orbits, pans and zooms with the mouse (three.js OrbitControls), "reset view" frames the
// mechanism again, and "follow" keeps a body or joint at the same place on screen. Pause, step N,
// reset and start are control commands sent on the WebSocket, which the view relays to the
// server's control port: the page says hello with its ?token= like any TCP client, and every
// reply comes back as a message with "ok" (docs/protocol.md "Live view", "Control channel").
// window.rtmbView exposes the state for the end-to-end test (tests/e2e/view_e2e.mjs).
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { Chart } from '/charts.js';
import { InstancedBodies } from '/instanced_bodies.js';

const view = {
  status: 'connecting',
  scene: null,
  // frames received, and the newest of them
  frames: 0,
  lastFrame: null,
  // the frame last applied to the drawing (its q and, for a built-in mechanism, joint points)
  drawn: null,
  // renderer.render() calls: every frame drawn with new content, and the redraws of the same
  // content after a camera move, a resize or while held (the browser test's hold)
  renderedFrames: 0,
  // frames drawn with new content: a received frame with a simulation time or step the drawing
  // did not show yet, applied and rendered (frames received while an animation frame was
  // pending are superseded by the newest one and never drawn, so not counted)
  drawnFrames: 0,
  // drawnFrames per second over the last second (null until a second has passed), and the
  // server's decimation for this page (one frame in `decimation` ticks of its timer is sent)
  fps: null,
  decimation: 1,
  // where the page's time goes, summed since it loaded [ms] and counted (issue 20 point 6):
  // JSON.parse of frames, applying a frame to the drawing, renderer.render(); and the browser's
  // animation frames (its own frame rate, new content or not). The fps test prints them.
  profile: { parseMs: 0, parses: 0, applyMs: 0, applies: 0, renderMs: 0, renders: 0, animationFrames: 0 },
  held: false,
  // control replies as received ({ok, command, ...}), newest last
  controlReplies: [],
  helloOk: false,
  // the mouse spring (`drag` command): {body, point (body frame), target (world)} while the
  // button is held on a body, else null
  drag: null,
};
window.rtmbView = view;
// the drawing happens on animation frames (render, below): what the next one has to do
let pending = null;      // the newest frame received and not yet drawn
let needsRender = true;  // the camera moved, the window resized, a scene was built

// ---- three.js scene ----------------------------------------------------------------------
const container = document.getElementById('scene');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
renderer.setClearColor(0xf4f5f7);
container.appendChild(renderer.domElement);
const scene3 = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(35, 1, 0.001, 1000);
const controls = new OrbitControls(camera, renderer.domElement);
scene3.add(new THREE.HemisphereLight(0xffffff, 0x8899aa, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.5);
sun.position.set(1, 2, 3);
scene3.add(sun);

const bodyMaterial = new THREE.MeshStandardMaterial({ color: 0x3b7dd8, roughness: 0.5 });
const comMaterial = new THREE.MeshStandardMaterial({ color: 0xe07b39, roughness: 0.4 });
const jointMaterial = new THREE.MeshStandardMaterial({ color: 0x333333, roughness: 0.6 });
const groundMaterial = new THREE.MeshStandardMaterial({ color: 0x888888, roughness: 0.8 });
const springMaterial = new THREE.LineBasicMaterial({ color: 0x2a9d4b });
const unitBar = new THREE.CylinderGeometry(1, 1, 1, 12);  // scaled per bar: radius, length
const unitBall = new THREE.SphereGeometry(1, 16, 12);
// Above this many bodies (issue 20 point 6: a 1000-body chain) they are drawn as lines and points
// (web/instanced_bodies.js says why)
const manyBodies = 64;
const unitBox = new THREE.BoxGeometry(1, 1, 1);

let bodies = null;  // body models: InstancedBodies (web/instanced_bodies.js)
let springs = [];  // {line, spec}
let rods = [];     // body models' distance joints: {mesh, spec}
let groundBlocks = [];
let bars = [];     // built-in mechanism: {mesh, a, b}
let pins = [];     // built-in mechanism: one ball per joint point
let scale = 0.05;  // link thickness, from the model's size

function sizeOf(sceneMsg) {
  // characteristic length: the largest distance of an attachment point from its centre of mass
  let r = 0;
  for (const b of sceneMsg.bodies) for (const p of bodyExtent(b)) r = Math.max(r, Math.hypot(p[0], p[1], p[2]));
  for (const p of sceneMsg.ground_points) r = Math.max(r, 0.25 * Math.hypot(p[0], p[1], p[2]));
  return r > 0 ? r : 1;
}

// a body's body-frame points that bound it: its attachment points, and a beam's far end (a beam
// pinned at one end has no other point there)
function bodyExtent(b) {
  return b.beam ? [...b.points, [b.beam.length, 0, 0]] : b.points;
}

const yAxis = new THREE.Vector3(0, 1, 0);
// places a unit cylinder (axis along its local y) from a to b with the given radius
function placeBar(mesh, a, b, radius) {
  const d = new THREE.Vector3().subVectors(b, a);
  const len = d.length();
  mesh.position.copy(a).addScaledVector(d, 0.5);
  mesh.scale.set(radius, Math.max(len, 1e-9), radius);
  if (len > 0) mesh.quaternion.setFromUnitVectors(yAxis, d.normalize());
}

function ball(material, radius, p) {
  const mesh = new THREE.Mesh(unitBall, material);
  mesh.scale.setScalar(radius);
  if (p) mesh.position.set(p[0], p[1], p[2]);
  return mesh;
}

function groundBlock(p) {
  const block = new THREE.Mesh(unitBox, groundMaterial);
  block.scale.set(4 * scale, 4 * scale, 2 * scale);
  block.position.set(p[0], p[1], p[2] - (view.scene.dimension === 3 ? 0 : 1.5 * scale));
  scene3.add(block);
  groundBlocks.push(block);
}

function clearScene() {
  for (const o of [...groundBlocks, ...bars.map((b) => b.mesh), ...pins]) scene3.remove(o);
  if (bodies) bodies.removeFrom(scene3);
  bodies = null;
  for (const s of springs) scene3.remove(s.line);
  for (const r of rods) scene3.remove(r.mesh);
  rods = [];
  groundBlocks = [];
  springs = [];
  bars = [];
  pins = [];
}

function buildScene(msg) {
  clearScene();
  const follow = document.getElementById('follow');
  follow.length = 1;  // keep "nothing"
  followIndex = -1;
  if (msg.joints) {
    // a built-in mechanism: bars and pins placed and sized at the first frame (applyJoints)
    for (const [a, b] of msg.joints.bars) {
      const mesh = new THREE.Mesh(unitBar, bodyMaterial);
      scene3.add(mesh);
      bars.push({ mesh, a, b });
    }
    for (let k = 0; k < msg.joints.count; ++k) {
      const pin = ball(jointMaterial, 1);
      scene3.add(pin);
      pins.push(pin);
      follow.add(new Option(`joint point ${k}`, String(k)));
    }
  } else {
    // the bodies and the ground are drawn at the first frame (createBodies), when the drawing's
    // size is known
    msg.bodies.forEach((b, i) => follow.add(new Option(b.name, String(i))));
    for (const spec of msg.bars || []) {
      const mesh = new THREE.Mesh(unitBar, bodyMaterial);
      scene3.add(mesh);
      rods.push({ mesh, spec });
    }
  }
  for (const spec of msg.links || []) {
    const geometry = new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(), new THREE.Vector3()]);
    const line = new THREE.Line(geometry, springMaterial);
    scene3.add(line);
    springs.push({ line, spec });
  }
  for (const c of Object.values(charts)) c.clear();
  energyStart = null;
  document.getElementById('note').textContent = msg.note || '';
  document.getElementById('model').textContent = msg.model;
  fitted = false;
}

// A body model's bodies and ground blocks, at its first frame f. The thickness of a link is 6 % of
// the largest body (its farthest attachment point), but at least 1/400 of the drawing's diagonal,
// so that a long chain of small bodies (1000 links of 0.5 m span 400 m) still shows as more than a
// hair. Each body a star from its centre of mass to its attachment points, all bodies in three
// instanced meshes (web/instanced_bodies.js).
function createBodies(f) {
  const box = new THREE.Box3();
  for (const p of framePoints(f)) box.expandByPoint(new THREE.Vector3(...p));
  scale = Math.max(0.06 * sizeOf(view.scene), box.getSize(new THREE.Vector3()).length() / 400);
  const many = view.scene.bodies.length > manyBodies;
  bodies = new InstancedBodies(view.scene.bodies, { bar: unitBar, ball: unitBall },
                               { body: bodyMaterial, com: comMaterial, joint: jointMaterial }, scale, many);
  bodies.addTo(scene3);
  for (const p of view.scene.ground_points) groundBlock(p);
}

// pose of body i at q: planar (x, y, theta), spatial (x, y, z, e0, e1, e2, e3)
function bodyPose(q, i) {
  const o = view.scene.bodies[i].q_offset;
  const position = new THREE.Vector3(q[o], q[o + 1], view.scene.dimension === 3 ? q[o + 2] : 0);
  const rotation = new THREE.Quaternion();
  if (view.scene.dimension === 3) {
    rotation.set(q[o + 4], q[o + 5], q[o + 6], q[o + 3]).normalize();
  } else {
    rotation.setFromAxisAngle(new THREE.Vector3(0, 0, 1), q[o + 2]);
  }
  return { position, rotation };
}

function worldPoint(q, body, p) {
  if (body < 0) return [p[0], p[1], p[2]];
  const { position, rotation } = bodyPose(q, body);
  const w = new THREE.Vector3(p[0], p[1], p[2]).applyQuaternion(rotation).add(position);
  return [w.x, w.y, w.z];
}

// a frame's joint points (built-in mechanisms) as [[x, y, z], ...]
function jointPoints(f) {
  const pts = [];
  for (let k = 0; k + 2 < f.points.length; k += 3) pts.push([f.points[k], f.points[k + 1], f.points[k + 2]]);
  return pts;
}

// every point worth framing at frame f
function framePoints(f) {
  if (view.scene.joints) return f.points ? jointPoints(f) : [];
  const pts = [];
  view.scene.bodies.forEach((b, i) => bodyExtent(b).forEach((p) => pts.push(worldPoint(f.q, i, p))));
  view.scene.ground_points.forEach((p) => pts.push(p));
  return pts;  // (a distance joint's ends are attachment points too)
}

// the longest link drawn at frame f: a bar between joint points, or a body's centre of mass to
// one of its attachment points
function longestLink(f) {
  let longest = 0;
  if (view.scene.joints) {
    if (!f.points) return 0;
    const pts = jointPoints(f);
    for (const { a, b } of bars) longest = Math.max(longest, Math.hypot(...[0, 1, 2].map((k) => pts[a][k] - pts[b][k])));
    return longest;
  }
  for (const b of view.scene.bodies) for (const p of bodyExtent(b)) longest = Math.max(longest, Math.hypot(...p));
  return longest;
}

let fitted = false;
function fitCamera(f) {
  // frame the bounding box of every point at this frame, with a margin
  const pts = framePoints(f);
  if (pts.length === 0) return;
  const box = new THREE.Box3();
  for (const [x, y, z] of pts) box.expandByPoint(new THREE.Vector3(x, y, z));
  // the mechanism moves: leave room for a link to swing out by half its length
  const grow = 0.5 * longestLink(f);
  box.expandByVector(new THREE.Vector3(grow, grow, view.scene.dimension === 3 ? grow : 0));
  const c = box.getCenter(new THREE.Vector3());
  const size = box.getSize(new THREE.Vector3());
  const r = Math.max(size.x, size.y, size.z, 4 * scale) * 0.9 + 6 * scale;
  const d = r / Math.tan((camera.fov * Math.PI) / 360);
  // the depth range follows the drawing (a 1000-link chain is framed from kilometres away); a
  // million to one keeps the depth buffer's resolution (0.001 to 1000 m for a metre-sized model)
  camera.far = Math.max(1000, 10 * (d + r));
  camera.near = camera.far * 1e-6;
  camera.updateProjectionMatrix();
  if (view.scene.dimension === 3) {
    // z up: look from the side and a little above
    camera.up.set(0, 0, 1);
    camera.position.set(c.x + 0.6 * d, c.y - 0.9 * d, c.z + 0.45 * d);
  } else {
    // slightly from below and the side, so the 3-D links read as 3-D
    camera.up.set(0, 1, 0);
    camera.position.set(c.x + 0.25 * d, c.y - 0.35 * d, d);
  }
  controls.target.copy(c);
  camera.lookAt(c);
  controls.update();
  needsRender = true;
  fitted = true;
  followLast = null;
}

// A built-in mechanism's size sets its bar thickness: a thirtieth of the mean bar, but at least
// 1/150 of the drawing, so that short bars (Andrews' 7 mm crank) still show.
function sizeJoints(pts) {
  let sum = 0;
  for (const { a, b } of bars) sum += Math.hypot(...[0, 1, 2].map((k) => pts[a][k] - pts[b][k]));
  const box = new THREE.Box3();
  for (const p of pts) box.expandByPoint(new THREE.Vector3(...p));
  const diag = box.getSize(new THREE.Vector3()).length();
  scale = Math.max(sum / Math.max(bars.length, 1) / 30, diag / 150, 1e-6);
  for (const pin of pins) pin.scale.setScalar(1.3 * scale);
  for (const g of view.scene.joints.ground) groundBlock(pts[g]);
}

function applyJoints(f) {
  if (!f.points) return;
  const pts = jointPoints(f);
  if (!fitted) sizeJoints(pts);
  for (const { mesh, a, b } of bars) {
    placeBar(mesh, new THREE.Vector3(...pts[a]), new THREE.Vector3(...pts[b]), 0.8 * scale);
  }
  pins.forEach((pin, k) => pin.position.set(...pts[k]));
}

// ---- follow: keep the chosen body or joint point where it is on screen
let followIndex = -1;
let followLast = null;
document.getElementById('follow').addEventListener('change', (e) => {
  followIndex = e.target.value === '' ? -1 : Number(e.target.value);
  // from the pose on screen now: the camera moves by the point's displacement from here on
  followLast = view.drawn ? followPoint(view.drawn) : null;
});
document.getElementById('reset-view').addEventListener('click', () => {
  if (view.drawn) fitCamera(view.drawn);
});

function followPoint(f) {
  if (followIndex < 0) return null;
  if (view.scene.joints) return f.points ? new THREE.Vector3(...jointPoints(f)[followIndex]) : null;
  return bodyPose(f.q, followIndex).position;
}

// true when f's q fits the scene's bodies: after a `load` the new scene comes first, and frames of
// the old model may still be on their way
function fits(f) {
  const last = view.scene.bodies[view.scene.bodies.length - 1];
  if (!last) return true;
  // a beam's coordinates: its frame's three, then its elastic ones (the largest index drawn)
  const elastic = last.beam ? 1 + Math.max(-1, ...last.beam.stations.flatMap((s) => s.index)) : 0;
  return f.q.length >= last.q_offset + (view.scene.dimension === 3 ? 7 : 3) + elastic;
}

function applyFrame(f) {
  if (!view.scene || !f.q || !fits(f)) return;
  const q = f.q;
  if (view.scene.joints) {
    applyJoints(f);
  } else {
    if (!bodies) createBodies(f);
    bodies.updateFromQ(q, view.scene, (i) => bodyPose(q, i));
  }
  if (!fitted) fitCamera(f);
  for (const s of springs) {
    const a = worldPoint(q, s.spec.body_i, s.spec.point_i);
    const b = worldPoint(q, s.spec.body_j, s.spec.point_j);
    const pos = s.line.geometry.attributes.position;
    pos.setXYZ(0, a[0], a[1], a[2]);
    pos.setXYZ(1, b[0], b[1], b[2]);
    pos.needsUpdate = true;
  }
  for (const r of rods) {
    const a = worldPoint(q, r.spec.body_i, r.spec.point_i);
    const b = worldPoint(q, r.spec.body_j, r.spec.point_j);
    placeBar(r.mesh, new THREE.Vector3(...a), new THREE.Vector3(...b), 0.8 * scale);
  }
  const p = followPoint(f);
  if (p) {
    // move the camera and its target by the point's displacement since the last frame
    if (followLast) {
      const delta = new THREE.Vector3().subVectors(p, followLast);
      camera.position.add(delta);
      controls.target.add(delta);
      controls.update();
    }
    followLast = p.clone();
  }
  drawDrag(f);
  view.drawn = f;
}

// ---- drag a body (issue 20 point 4): a mouse spring the server applies (`drag` command) ------
// Pressing the left button on a body of a body model grabs the body point under the cursor; while
// the button is held the spring's target is the cursor's projection (onto the plane z = 0 of a
// planar model, or onto the plane through the grabbed point facing the camera), sent at most every
// 33 ms and at least every 250 ms (the server's lease ends a drag not refreshed for 1 s); letting
// go sends a release, after which the server ramps the force to zero. The force the server
// applies comes back in every frame and is drawn as an arrow from the body point, as long as the
// spring's stretch F/k. A beam body is grabbed at the material point of its axis under the cursor.
// Built-in mechanisms have no bodies and cannot be dragged.
const raycaster = new THREE.Raycaster();
const arrow = new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), new THREE.Vector3(), 1, 0xd62828);
arrow.visible = false;
scene3.add(arrow);
let dragStiffness = null;  // k [N/m] from the drag reply
let dragPlane = null;
let dragSent = 0;
let dragTimer = null;

function cursorRay(event) {
  const rect = renderer.domElement.getBoundingClientRect();
  const ndc = new THREE.Vector2(((event.clientX - rect.left) / rect.width) * 2 - 1,
                                -((event.clientY - rect.top) / rect.height) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  return raycaster.ray;
}

function sendDrag() {
  const d = view.drag;
  if (!d) return;
  dragSent = performance.now();
  sendCommand({ command: 'drag', body: view.scene.bodies[d.body].name, px: d.point[0], py: d.point[1],
                pz: d.point[2], x: d.target[0], y: d.target[1], z: d.target[2] });
}

renderer.domElement.addEventListener('pointerdown', (event) => {
  if (event.button !== 0 || !view.scene || view.scene.joints || !view.drawn || !view.helloOk) return;
  cursorRay(event);
  const hit = bodies ? bodies.pick(raycaster) : null;
  if (!hit) return;  // not on a body: the camera orbits
  const body = hit.body;
  // a grab, not an orbit: OrbitControls listens on the same element, after this listener
  event.stopImmediatePropagation();
  controls.enabled = false;
  renderer.domElement.setPointerCapture(event.pointerId);
  const { position, rotation } = bodyPose(view.drawn.q, body);
  const world = hit.point.clone();
  if (view.scene.dimension !== 3) world.z = 0;
  const local = world.clone().sub(position).applyQuaternion(rotation.clone().invert());
  const normal = view.scene.dimension === 3 ? camera.getWorldDirection(new THREE.Vector3()) : new THREE.Vector3(0, 0, 1);
  dragPlane = new THREE.Plane().setFromNormalAndCoplanarPoint(normal, world);
  // a beam's point is the abscissa of its axis the pick found (hit.local): its frame's pose is
  // not where its deformed axis is
  const point = hit.local ?? [local.x, local.y, view.scene.dimension === 3 ? local.z : 0];
  view.drag = { body, point, target: world.toArray() };
  sendDrag();
  dragTimer = setInterval(() => { if (performance.now() - dragSent > 250) sendDrag(); }, 100);
}, { capture: true });

renderer.domElement.addEventListener('pointermove', (event) => {
  if (!view.drag) return;
  const hit = cursorRay(event).intersectPlane(dragPlane, new THREE.Vector3());
  if (!hit) return;
  view.drag.target = hit.toArray();
  if (performance.now() - dragSent > 33) sendDrag();
});

function endDrag() {
  if (!view.drag) return;
  sendDrag();  // the last target, then let go
  view.drag = null;
  clearInterval(dragTimer);
  controls.enabled = true;
  sendCommand({ command: 'drag' });
}
renderer.domElement.addEventListener('pointerup', endDrag);
renderer.domElement.addEventListener('pointercancel', endDrag);

function drawDrag(f) {
  const d = f.drag;
  const magnitude = d ? Math.hypot(...d.force) : 0;
  arrow.visible = Boolean(d && d.active && magnitude > 0 && dragStiffness);
  if (!arrow.visible) return;
  const length = magnitude / dragStiffness;
  arrow.position.set(...d.point);
  arrow.setDirection(new THREE.Vector3(...d.force).normalize());
  arrow.setLength(Math.max(length, 1e-6), Math.min(0.3 * length, 3 * scale), Math.min(0.2 * length, 2 * scale));
}

// For the browser test: stop applying frames (the drawing stays at view.drawn), and project a
// world point to canvas pixels with the camera the drawing was rendered with.
view.hold = (on) => { view.held = on; };
view.project = (p) => {
  const v = new THREE.Vector3(p[0], p[1], p[2]).project(camera);
  const c = renderer.domElement;
  return [((v.x + 1) / 2) * c.width, ((1 - v.y) / 2) * c.height];
};
view.camera = () => ({ position: camera.position.toArray(), target: controls.target.toArray() });

// each beam body's drawn axis as last drawn: [{body, points: [[x, y, 0], ...]}] (web/instanced_bodies.js)
Object.defineProperty(view, 'beamPoints', { get: () => (bodies ? bodies.beams.drawnPoints() : []) });

// world (x, y, z) of every body's centre of mass as last drawn (computed when asked, not per frame)
Object.defineProperty(view, 'bodyPositions', {
  get: () => (view.drawn && view.scene && !view.scene.joints
    ? view.scene.bodies.map((b, i) => bodyPose(view.drawn.q, i).position.toArray()) : []),
});

function resize() {
  needsRender = true;
  const w = container.clientWidth;
  const h = container.clientHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();

// The page's frame rate (issue 20 point 6): frames drawn with new content over the last second,
// shown in the header and reported to the server, which sends this page fewer frames when it
// cannot draw them all (net/view_decimation.hpp; the reply says the decimation). view.fps is what
// the browser test reads. A paused simulation's frames carry no new state: the rate is then 0,
// which the server ignores.
let fpsWindowStart = null;
let fpsWindowFrames = 0;
let fpsWindowAnimationFrames = 0;
function countFrame(now, fresh) {
  if (fpsWindowStart === null) {
    // the first window starts at the first frame drawn of a scene, not while it was being built
    if (fresh) {
      fpsWindowStart = now;
      fpsWindowFrames = 0;
      fpsWindowAnimationFrames = 0;
    }
    return;
  }
  if (fresh) fpsWindowFrames += 1;
  fpsWindowAnimationFrames += 1;
  if (now - fpsWindowStart < 1000) return;
  view.fps = (1000 * fpsWindowFrames) / (now - fpsWindowStart);
  // the animation frames too: a page with idle ones can be sent more (net/view_decimation.hpp)
  const raf = (1000 * fpsWindowAnimationFrames) / (now - fpsWindowStart);
  fpsWindowStart = now;
  fpsWindowFrames = 0;
  fpsWindowAnimationFrames = 0;
  document.getElementById('fps').textContent = view.fps.toFixed(1);
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ view: 'frame_rate', fps: view.fps, raf }));
  }
}

// The drawing runs on the browser's animation frames: each applies the newest frame received
// since the last one (older ones are superseded, never drawn) and renders; with nothing new (no
// frame, no camera move) nothing is rendered, which leaves the main thread to the socket.
controls.addEventListener('change', () => { needsRender = true; });
function isNew(f, old) {
  return !old || f.t !== old.t || f.step !== old.step;
}
function render(now) {
  requestAnimationFrame(render);
  view.profile.animationFrames += 1;
  let fresh = false;
  if (pending && !view.held) {
    const f = pending;
    pending = null;
    const old = view.drawn;
    const t0 = performance.now();
    applyFrame(f);
    view.profile.applyMs += performance.now() - t0;
    view.profile.applies += 1;
    fresh = view.drawn === f && isNew(f, old);
    if (fresh) needsRender = true;
  }
  if (needsRender || view.held) {
    const t0 = performance.now();
    renderer.render(scene3, camera);
    view.profile.renderMs += performance.now() - t0;
    view.profile.renders += 1;
    view.renderedFrames += 1;
    needsRender = false;
  }
  if (fresh) view.drawnFrames += 1;
  countFrame(now, fresh);
}
requestAnimationFrame(render);

// ---- charts (web/charts.js) -----------------------------------------------------------------
const chartsBox = document.getElementById('charts');
const charts = {
  drift: new Chart(chartsBox, {
    id: 'chart-drift', title: 'constraint drift', yLabel: 'drift', unit: 'm, rad (/s)', log: true,
    traces: [{ name: 'position ‖g‖∞ [m, rad]', color: '#c0392b' },
             { name: 'velocity ‖Gv + gₜ‖∞ [m/s, rad/s]', color: '#2e86de' }] }),
  // the change of E = T + V since the page's first frame: a person reads energy drift of 1e-9 J
  // there, not in ticks of E itself
  energy: new Chart(chartsBox, {
    id: 'chart-energy', title: 'energy drift', yLabel: 'E − E₀', unit: 'J',
    traces: [{ name: 'E − E₀', color: '#27ae60' }] }),
  step: new Chart(chartsBox, {
    id: 'chart-step', title: 'step compute time per tick', yLabel: 'time', unit: 'µs',
    traces: [{ name: 'p50', color: '#2e86de' }, { name: 'p99', color: '#8e44ad' }] }),
  latency: new Chart(chartsBox, {
    id: 'chart-latency', title: 'latency: tick → state sent', yLabel: 'time', unit: 'µs',
    traces: [{ name: 'p50', color: '#16a085' }, { name: 'p99', color: '#d35400' }] }),
  // the round trip a device client measures from the latency echo and reports once a second
  // (`report` command; the demo device of rtmb serve --demo sends it): input sent -> the state
  // that applied it received, the network both ways included
  rtt: new Chart(chartsBox, {
    id: 'chart-rtt', title: 'device round trip: input sent → its state received', yLabel: 'time', unit: 'µs',
    traces: [{ name: 'p50', color: '#2c3e50' }, { name: 'p99', color: '#c0392b' }],
    empty: 'no device reports its round trip' }),
};
view.charts = charts;  // for the end-to-end test: each chart's times (t) and values

let energyStart = null;  // E at the first frame with an energy

function fmt(x, digits = 3) {
  return x === null || x === undefined ? '–' : Number(x).toPrecision(digits);
}

let lastT = null;
let panelDrawn = -Infinity;  // performance.now() of the last redraw of the charts and numbers
function updatePanel(f) {
  // a reset (from this page or any control client) starts time again: the charts start over, so
  // that their time axis never runs backwards, and E₀ is the reset state's energy
  if (lastT !== null && f.t < lastT) {
    for (const c of Object.values(charts)) c.clear();
    energyStart = null;
  }
  lastT = f.t;
  charts.drift.push(f.t, [f.drift, f.velocity_drift]);
  if (energyStart === null && Number.isFinite(f.energy)) {
    energyStart = f.energy;
    document.querySelector('#chart-energy figcaption').textContent =
      `energy drift (E = T + V, E₀ = ${fmt(energyStart, 6)} J at t = ${Number(f.t).toFixed(3)} s)`;
  }
  charts.energy.push(f.t, [energyStart === null || f.energy === null ? null : f.energy - energyStart]);
  charts.step.push(f.t, [f.step_p50_us, f.step_p99_us]);
  charts.latency.push(f.t, [f.turnaround_p50_us, f.turnaround_p99_us]);
  charts.rtt.push(f.t, [f.device_rtt_p50_us, f.device_rtt_p99_us]);
  // The charts and numbers are redrawn 5 times a second: plenty for a person, and the page's
  // largest cost besides the scene (redrawn at 15 Hz, rebuilding the SVG of five charts took more
  // than a third of the main thread in headless Chromium under load; issue 20 point 6).
  const now = performance.now();
  if (now - panelDrawn < 200) return;
  panelDrawn = now;
  // the header's time and step too: a text changed at every frame is a repaint at every frame
  document.getElementById('time').textContent = Number(f.t).toFixed(3);
  document.getElementById('step').textContent = f.step;
  for (const c of Object.values(charts)) c.draw();
  const rows = [
    ['‖g‖∞', fmt(f.drift)], ['‖Gv + gₜ‖∞', fmt(f.velocity_drift)], ['energy [J]', fmt(f.energy, 6)],
    ['input wait p50 [µs]', fmt(f.input_wait_p50_us)], ['overruns', f.overruns],
    ['clients', f.clients], ['paused', f.paused ? 'yes' : 'no'],
  ];
  document.getElementById('numbers').innerHTML =
    rows.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join('');
}

// ---- connection ----------------------------------------------------------------------------
function setStatus(s) {
  view.status = s;
  const el = document.getElementById('status');
  el.textContent = s;
  el.className = s === 'connected' ? 'connected' : 'disconnected';
}

// ---- controls --------------------------------------------------------------------------------
let socket = null;
let nextId = 1;
const pageToken = new URLSearchParams(location.search).get('token');

function sendCommand(body) {
  if (!socket || socket.readyState !== WebSocket.OPEN) return;
  socket.send(JSON.stringify({ ...body, id: nextId++ }));
}

function hello(version) {
  const body = { command: 'hello' };
  if (pageToken !== null) body.token = pageToken;
  if (version) body.version = version;
  sendCommand(body);
}

function onControlReply(msg) {
  view.controlReplies.push(msg);
  if (view.controlReplies.length > 100) view.controlReplies.shift();
  // a server bound beyond loopback takes only authenticated (version 2) sessions; the page sends
  // no UDP inputs, so either version serves it
  if (msg.command === 'hello' && !msg.ok && /version.?.?:2/.test(msg.error || '')) {
    hello(2);
    return;
  }
  if (msg.command === 'drag' && msg.ok && msg.stiffness) dragStiffness = msg.stiffness;
  if (msg.command === 'hello') {
    view.helloOk = msg.ok;
    if (msg.ok) listChannels(msg.inputs || '', msg.input_units || '');
  }
  // a load's reply carries the new model's schema, as hello's does
  if (msg.command === 'load' && msg.ok) listChannels(msg.inputs || '', msg.input_units || '');
  const el = document.getElementById('control-reply');
  el.textContent = msg.ok ? `${msg.command}: ok` : `${msg.command || 'command'}: ${msg.error}`;
  el.title = el.textContent;  // the whole reply (the header shows its start)
  el.className = msg.ok ? '' : 'error';
}

// the model's input channels, from the hello reply (comma-separated names and units)
function listChannels(names, units) {
  const select = document.getElementById('set-channel');
  select.replaceChildren();
  const unitList = units.split(',');
  names.split(',').filter((n) => n.length > 0).forEach((name, k) => {
    const option = document.createElement('option');
    option.value = name;
    option.textContent = unitList[k] ? `${name} [${unitList[k]}]` : name;
    select.appendChild(option);
  });
}

document.getElementById('set').addEventListener('click', () => {
  const param = document.getElementById('set-channel').value;
  // a sample of the channel, as over UDP: its policy and the watchdog apply (docs/protocol.md)
  if (param) sendCommand({ command: 'set', param, value: Number(document.getElementById('set-value').value) });
});
document.getElementById('pause').addEventListener('click', () => sendCommand({ command: 'pause' }));
document.getElementById('start').addEventListener('click', () => sendCommand({ command: 'start' }));
document.getElementById('reset').addEventListener('click', () => sendCommand({ command: 'reset' }));
document.getElementById('step-n').addEventListener('click', () => {
  const n = Number(document.getElementById('step-count').value);
  // the server checks the range too (1..1000000) and says so when it is wrong
  sendCommand({ command: 'step', count: Number.isInteger(n) ? n : 0 });
});

function connect() {
  // the page's ?token= (rtmb serve --token) guards the WebSocket too (docs/protocol.md)
  const ws = new WebSocket(`ws://${location.host}/ws${location.search}`);
  socket = ws;
  ws.onopen = () => {
    setStatus('connected');
    view.helloOk = false;
    hello();
  };
  ws.onclose = () => {
    setStatus('disconnected');
    setTimeout(connect, 1000);
  };
  ws.onmessage = (event) => {
    const t0 = performance.now();
    const msg = JSON.parse(event.data);
    view.profile.parseMs += performance.now() - t0;
    view.profile.parses += 1;
    if (msg.type === 'scene') {
      // the first scene, or a new model's after a `load`: everything is drawn anew
      if (view.drag) endDrag();
      view.scene = msg;
      view.scenes = (view.scenes || 0) + 1;
      view.drawn = null;
      pending = null;
      needsRender = true;
      fpsWindowStart = null;
      buildScene(msg);
    } else if (msg.type === 'frame') {
      view.frames += 1;
      view.lastFrame = msg;
      pending = msg;  // drawn at the next animation frame (render), unless a newer one comes first
      updatePanel(msg);
    } else if (msg.type === 'view') {
      // the server's answer to the frame-rate report: it sends one frame in `decimation` ticks
      // of its timer (a real number, net/view_decimation.hpp)
      view.decimation = msg.decimation;
      // in the tooltip, not the header's text: a text that changes length every second re-wraps
      // the header and moves the canvas under the mouse (the browser test's drag saw it)
      document.getElementById('fps').title = `the server sends this page ${(msg.frame_rate_hz / msg.decimation).toFixed(1)} of its ${msg.frame_rate_hz} frames/s`;
    } else if ('ok' in msg) {
      onControlReply(msg);
    }
  };
}
connect();
