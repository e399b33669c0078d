// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// Live view of `rtmb serve --view`: draws the mechanism with three.js from the `scene` message
// and moves it with every `frame` (docs/protocol.md "Live view"), and plots drift, step time and
// latency. window.rtmbView exposes the state for the end-to-end test (tests/e2e/view_e2e.mjs).
import * as THREE from 'three';

const view = {
  status: 'connecting',
  scene: null,
  frames: 0,
  lastFrame: null,
  // world (x, y) of every body's centre of mass as last drawn
  bodyPositions: [],
  renderedFrames: 0,
};
window.rtmbView = view;

const HISTORY = 300;  // frames kept in the plots (10 s at 30 Hz)
const history = { drift: [], stepP50: [], stepP99: [], latP50: [], latP99: [] };

// ---- three.js scene ----------------------------------------------------------------------
const container = document.getElementById('scene');
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
renderer.setClearColor(0xf4f5f7);
container.appendChild(renderer.domElement);
const scene3 = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(35, 1, 0.001, 1000);
scene3.add(new THREE.HemisphereLight(0xffffff, 0x8899aa, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.5);
sun.position.set(1, 2, 3);
scene3.add(sun);

const bodyMaterial = new THREE.MeshStandardMaterial({ color: 0x3b7dd8, roughness: 0.5 });
const comMaterial = new THREE.MeshStandardMaterial({ color: 0xe07b39, roughness: 0.4 });
const jointMaterial = new THREE.MeshStandardMaterial({ color: 0x333333, roughness: 0.6 });
const groundMaterial = new THREE.MeshStandardMaterial({ color: 0x888888, roughness: 0.8 });
const springMaterial = new THREE.LineBasicMaterial({ color: 0x2a9d4b });

let bodyGroups = [];
let springs = [];  // {line, spec}
let groundBlocks = [];
let scale = 0.05;  // link thickness, from the model's size

function sizeOf(sceneMsg) {
  // characteristic length: the largest distance of an attachment point from its centre of mass
  let r = 0;
  for (const b of sceneMsg.bodies) for (const p of b.points) r = Math.max(r, Math.hypot(p[0], p[1], p[2]));
  for (const p of sceneMsg.ground_points) r = Math.max(r, 0.25 * Math.hypot(p[0], p[1], p[2]));
  return r > 0 ? r : 1;
}

function link(a, b, radius) {
  // a cylinder from a to b (body frame, 3-D points)
  const va = new THREE.Vector3(a[0], a[1], a[2]);
  const vb = new THREE.Vector3(b[0], b[1], b[2]);
  const d = new THREE.Vector3().subVectors(vb, va);
  const len = d.length();
  const mesh = new THREE.Mesh(new THREE.CylinderGeometry(radius, radius, Math.max(len, 1e-9), 12),
                              bodyMaterial);
  mesh.position.copy(va).addScaledVector(d, 0.5);
  // the cylinder's axis is its local y
  if (len > 0) mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), d.normalize());
  return mesh;
}

function buildScene(msg) {
  for (const g of bodyGroups) scene3.remove(g);
  for (const s of springs) scene3.remove(s.line);
  for (const b of groundBlocks) scene3.remove(b);
  bodyGroups = [];
  groundBlocks = [];
  springs = [];
  const size = sizeOf(msg);
  scale = 0.06 * size;
  for (const b of msg.bodies) {
    const group = new THREE.Group();
    const com = b.points[0];
    const ball = new THREE.Mesh(new THREE.SphereGeometry(1.6 * scale, 20, 14), comMaterial);
    group.add(ball);
    for (const p of b.points.slice(1)) {
      group.add(link(com, p, scale * 0.8));
      const pin = new THREE.Mesh(new THREE.SphereGeometry(1.2 * scale, 16, 12), jointMaterial);
      pin.position.set(p[0], p[1], p[2]);
      group.add(pin);
    }
    scene3.add(group);
    bodyGroups.push(group);
  }
  for (const p of msg.ground_points) {
    const block = new THREE.Mesh(new THREE.BoxGeometry(4 * scale, 4 * scale, 2 * scale), groundMaterial);
    block.position.set(p[0], p[1], p[2] - (view.scene && view.scene.dimension === 3 ? 0 : 1.5 * scale));
    scene3.add(block);
    groundBlocks.push(block);
  }
  for (const link of msg.links || []) {
    const geometry = new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(), new THREE.Vector3()]);
    const line = new THREE.Line(geometry, springMaterial);
    scene3.add(line);
    springs.push({ line, spec: link });
  }
  document.getElementById('note').textContent = msg.note || '';
  document.getElementById('model').textContent = msg.model;
  fitted = false;
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

let fitted = false;
function fitCamera(q) {
  // frame the bounding box of every attachment point at the first state, with a margin
  const pts = [];
  view.scene.bodies.forEach((b, i) => b.points.forEach((p) => pts.push(worldPoint(q, i, p))));
  view.scene.ground_points.forEach((p) => pts.push(p));
  if (pts.length === 0) return;
  const box = new THREE.Box3();
  for (const [x, y, z] of pts) box.expandByPoint(new THREE.Vector3(x, y, z));
  const c = box.getCenter(new THREE.Vector3());
  const size = box.getSize(new THREE.Vector3());
  const r = Math.max(size.x, size.y, size.z, 4 * scale) * 0.9 + 6 * scale;
  const d = r / Math.tan((camera.fov * Math.PI) / 360);
  if (view.scene.dimension === 3) {
    // z up: look from the side and a little above
    camera.up.set(0, 0, 1);
    camera.position.set(c.x + 0.6 * d, c.y - 0.9 * d, c.z + 0.45 * d);
  } else {
    // slightly from below and the side, so the 3-D links read as 3-D
    camera.up.set(0, 1, 0);
    camera.position.set(c.x + 0.25 * d, c.y - 0.35 * d, d);
  }
  camera.lookAt(c.x, c.y, c.z);
  fitted = true;
}

function applyFrame(f) {
  if (!view.scene || !f.q) return;
  const q = f.q;
  if (!fitted) fitCamera(q);
  view.bodyPositions = view.scene.bodies.map((b, i) => {
    const { position, rotation } = bodyPose(q, i);
    const g = bodyGroups[i];
    if (g) {
      g.position.copy(position);
      g.quaternion.copy(rotation);
    }
    return [position.x, position.y, position.z];
  });
  for (const s of springs) {
    const a = worldPoint(q, s.spec.body_i, s.spec.point_i);
    const b = worldPoint(q, s.spec.body_j, s.spec.point_j);
    const pos = s.line.geometry.attributes.position;
    pos.setXYZ(0, a[0], a[1], a[2]);
    pos.setXYZ(1, b[0], b[1], b[2]);
    pos.needsUpdate = true;
  }
}

function resize() {
  const w = container.clientWidth;
  const h = container.clientHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();

function render() {
  renderer.render(scene3, camera);
  view.renderedFrames += 1;
  requestAnimationFrame(render);
}
requestAnimationFrame(render);

// ---- plots ---------------------------------------------------------------------------------
function push(list, x) {
  list.push(x);
  if (list.length > HISTORY) list.shift();
}

function plot(id, series, colors, log10) {
  const canvas = document.getElementById(id);
  const w = (canvas.width = canvas.clientWidth * (window.devicePixelRatio || 1));
  const h = (canvas.height = canvas.clientHeight * (window.devicePixelRatio || 1));
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, w, h);
  const values = series.flat().filter((v) => v !== null && Number.isFinite(v) && (!log10 || v > 0))
    .map((v) => (log10 ? Math.log10(v) : v));
  if (values.length === 0) {
    ctx.fillStyle = '#888';
    ctx.fillText('no data yet', 8, 16);
    return;
  }
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi - lo < 1e-12) { hi += 1; lo -= 1; }
  const pad = 0.08 * (hi - lo);
  // times are never negative: keep the axis at or above zero
  lo = log10 || lo < 0 ? lo - pad : Math.max(lo - pad, 0);
  hi += pad;
  ctx.font = `${10 * (window.devicePixelRatio || 1)}px sans-serif`;
  ctx.fillStyle = '#666';
  ctx.fillText(hi.toPrecision(3), 2, 11 * (window.devicePixelRatio || 1));
  ctx.fillText(lo.toPrecision(3), 2, h - 3);
  series.forEach((s, k) => {
    ctx.strokeStyle = colors[k];
    ctx.lineWidth = 1.5 * (window.devicePixelRatio || 1);
    ctx.beginPath();
    let started = false;
    s.forEach((v, i) => {
      if (v === null || !Number.isFinite(v) || (log10 && v <= 0)) return;
      const y = h - ((log10 ? Math.log10(v) : v) - lo) / (hi - lo) * h;
      const x = (i / (HISTORY - 1)) * w;
      if (!started) { ctx.moveTo(x, y); started = true; } else ctx.lineTo(x, y);
    });
    ctx.stroke();
  });
}

function fmt(x, digits = 3) {
  return x === null || x === undefined ? '–' : Number(x).toPrecision(digits);
}

function updatePanel(f) {
  document.getElementById('time').textContent = Number(f.t).toFixed(3);
  document.getElementById('step').textContent = f.step;
  push(history.drift, f.drift);
  push(history.stepP50, f.step_p50_us);
  push(history.stepP99, f.step_p99_us);
  push(history.latP50, f.turnaround_p50_us);
  push(history.latP99, f.turnaround_p99_us);
  plot('plot-drift', [history.drift], ['#c0392b'], true);
  plot('plot-step', [history.stepP50, history.stepP99], ['#2e86de', '#8e44ad'], false);
  plot('plot-latency', [history.latP50, history.latP99], ['#16a085', '#d35400'], false);
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

function connect() {
  // the page's ?token= (rtmb serve --token) guards the WebSocket too (docs/protocol.md)
  const ws = new WebSocket(`ws://${location.host}/ws${location.search}`);
  ws.onopen = () => setStatus('connected');
  ws.onclose = () => {
    setStatus('disconnected');
    setTimeout(connect, 1000);
  };
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (msg.type === 'scene') {
      view.scene = msg;
      buildScene(msg);
    } else if (msg.type === 'frame') {
      view.frames += 1;
      view.lastFrame = msg;
      applyFrame(msg);
      updatePanel(msg);
    }
  };
}
connect();
