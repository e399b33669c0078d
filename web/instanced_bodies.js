// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
//
// The bodies of a body model drawn with instancing (issue 20 point 6: a 1000-body chain at the
// stream rate). Each body is a star: a ball at its centre of mass, a bar from there to each point
// where a joint or force element attaches, and a ball at each such point (the scene's body-frame
// `points`, docs/protocol.md "Live view"). All balls of one kind and all bars are one
// THREE.InstancedMesh each, so a frame is three draw calls whatever the body count, instead of
// three per point and body: with WebGL drawn in software (headless Chromium's SwiftShader) the
// per-call cost, not the pixels, is what a thousand bodies would pay.
//
// Each instance's matrix is the body's pose (position, rotation from q) times a fixed body-frame
// matrix computed once from the scene: world = T(body) * L(instance).
//
// A beam body (its scene entry has `beam`) is not a star: its axis is drawn deformed, as bars (or
// in `lines` mode line segments) between stations along it, each station's world point
// R + A(theta) ((x, 0) + S(x) q_f) from q and the station's shape-function columns, which the
// server writes from the engine's (docs/protocol.md "Live view"); balls mark where its joints
// attach. BeamAxes below; a beam is picked at the point of its drawn axis nearest the cursor, which
// the view's drag names by its abscissa x on the undeformed axis (body point (x, 0), the material
// point the server pulls).
//
// Many bodies (`lines`: the page passes it above 64) are drawn thinner still: every bar one line
// segment and every centre of mass one point, two draw calls of two and one vertices per item.
// Measured in headless Chromium's SwiftShader on the 2-core CI machine under load (issue 20 point
// 6): the 1000-link chain as three instanced meshes of coarse shapes (about 50 000 triangles) drew
// 5.5 frames/s, as instanced or merged meshes alike (the cost is rasterizing the triangles, not
// the draw calls), while the same chain as line segments drew 25 frames/s and an empty scene 37; at
// the distance a 400 m chain is framed from, a link is a pixel or two wide either way.
import * as THREE from 'three';

const yAxis = new THREE.Vector3(0, 1, 0);

// the body-frame matrix of a unit cylinder (axis y, radius 1, length 1, centred) from a to b
function barMatrix(a, b, radius) {
  const d = new THREE.Vector3().subVectors(b, a);
  const len = Math.max(d.length(), 1e-9);
  const q = new THREE.Quaternion();
  if (d.length() > 0) q.setFromUnitVectors(yAxis, d.clone().normalize());
  const centre = a.clone().addScaledVector(d, 0.5);
  return new THREE.Matrix4().compose(centre, q, new THREE.Vector3(radius, len, radius));
}

function ballMatrix(p, radius) {
  return new THREE.Matrix4().compose(p, new THREE.Quaternion(), new THREE.Vector3(radius, radius, radius));
}

export class InstancedBodies {
  // bodies: the scene's bodies ({points: [[x, y, z], ...]}, points[0] the centre of mass);
  // geometry: {bar, ball} unit shapes; materials: {body, com, joint}; scale: link thickness
  constructor(bodies, geometry, materials, scale, lines = false) {
    this.linesMode = lines;
    this.pickRadius = scale;
    this.beams = new BeamAxes(bodies, geometry, materials, scale, lines);
    if (lines) {
      this.makeLines(bodies, materials);
      return;
    }
    this.local = { com: [], bar: [], joint: [] };  // per kind: [{body, matrix}]
    bodies.forEach((b, i) => {
      if (b.beam) return;  // BeamAxes
      const com = new THREE.Vector3(...b.points[0]);
      this.local.com.push({ body: i, matrix: ballMatrix(com, 1.6 * scale) });
      for (const p of b.points.slice(1)) {
        const v = new THREE.Vector3(...p);
        this.local.bar.push({ body: i, matrix: barMatrix(com, v, 0.8 * scale) });
        this.local.joint.push({ body: i, matrix: ballMatrix(v, 1.2 * scale) });
      }
    });
    const make = (shape, material, list) => {
      const mesh = new THREE.InstancedMesh(shape, material, Math.max(list.length, 1));
      mesh.count = list.length;
      // every instance moves every frame: the bounds three.js would compute once are stale, so
      // the mesh is never culled
      mesh.frustumCulled = false;
      return mesh;
    };
    this.meshes = {
      com: make(geometry.ball, materials.com, this.local.com),
      bar: make(geometry.bar, materials.body, this.local.bar),
      joint: make(geometry.ball, materials.joint, this.local.joint),
    };
    this.pose = new THREE.Matrix4();
    this.world = new THREE.Matrix4();
  }

  makeLines(bodies, materials) {
    // per segment: the body and its two body-frame ends; per body its centre of mass
    // (beams: BeamAxes)
    this.segments = [];
    this.centres = [];  // {body, p}
    bodies.forEach((b, i) => {
      if (b.beam) return;
      for (const p of b.points.slice(1)) this.segments.push({ body: i, a: new THREE.Vector3(...b.points[0]), b: new THREE.Vector3(...p) });
      this.centres.push({ body: i, p: new THREE.Vector3(...b.points[0]) });
    });
    // the same as flat arrays for updateFromQ, made once: every vertex's body (its q offset) and
    // body-frame point, vertices in the order of the two position buffers (segment ends, then
    // centres)
    const vertices = [...this.segments.flatMap(({ body, a, b }) => [[body, a], [body, b]]),
                      ...this.centres.map(({ body, p }) => [body, p])];
    this.vertexOffset = new Int32Array(vertices.map(([body]) => bodies[body].q_offset));
    this.vertexLocal = new Float64Array(vertices.flatMap(([, p]) => [p.x, p.y, p.z]));
    const segmentGeometry = new THREE.BufferGeometry();
    segmentGeometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6 * this.segments.length), 3));
    const pointGeometry = new THREE.BufferGeometry();
    pointGeometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * this.centres.length), 3));
    this.meshes = {
      bar: new THREE.LineSegments(segmentGeometry, new THREE.LineBasicMaterial({ color: materials.body.color })),
      com: new THREE.Points(pointGeometry, new THREE.PointsMaterial({ color: materials.com.color, size: 2, sizeAttenuation: false })),
    };
    for (const m of Object.values(this.meshes)) m.frustumCulled = false;
  }

  updateLines(poses) {
    const w = new THREE.Vector3();
    const seg = this.meshes.bar.geometry.attributes.position;
    this.segments.forEach(({ body, a, b }, k) => {
      const p = poses[body];
      w.copy(a).applyQuaternion(p.rotation).add(p.position);
      seg.setXYZ(2 * k, w.x, w.y, w.z);
      w.copy(b).applyQuaternion(p.rotation).add(p.position);
      seg.setXYZ(2 * k + 1, w.x, w.y, w.z);
    });
    seg.needsUpdate = true;
    const com = this.meshes.com.geometry.attributes.position;
    this.centres.forEach(({ body, p }, k) => {
      w.copy(p).applyQuaternion(poses[body].rotation).add(poses[body].position);
      com.setXYZ(k, w.x, w.y, w.z);
    });
    com.needsUpdate = true;
    for (const m of Object.values(this.meshes)) m.geometry.boundingSphere = null;  // for picking
  }

  addTo(scene3) {
    for (const m of Object.values(this.meshes)) scene3.add(m);
    this.beams.addTo(scene3);
  }

  removeFrom(scene3) {
    this.beams.removeFrom(scene3);
    for (const m of Object.values(this.meshes)) {
      scene3.remove(m);
      if (m.dispose) m.dispose();
      if (this.linesMode) {
        m.geometry.dispose();
        m.material.dispose();
      }
    }
  }

  // Moves the drawing to the coordinates q of the scene (planar: x, y, theta per body; spatial:
  // x, y, z, e0..e3); poseOf(i) gives body i's {position, rotation}. Many bodies (lines): each
  // vertex straight from q into the position buffers, world = r + R(q) p, without a THREE object
  // per body: measured in headless Chromium on the loaded CI machine (tests/e2e/view_fps_e2e.mjs
  // prints the page's profile), the 1000-link chain's update through poseOf and update() took
  // 0.3-1.1 ms a frame, this 0.15-0.5 ms.
  updateFromQ(q, scene, poseOf) {
    this.beams.update(q);
    if (!this.linesMode) {
      this.update(scene.bodies.map((b, i) => poseOf(i)));
      return;
    }
    const seg = this.meshes.bar.geometry.attributes.position;
    const com = this.meshes.com.geometry.attributes.position;
    const nSeg = seg.count;
    const off = this.vertexOffset;
    const p = this.vertexLocal;
    const spatial = scene.dimension === 3;
    for (let v = 0; v < off.length; ++v) {
      const o = off[v];
      const px = p[3 * v];
      const py = p[3 * v + 1];
      const pz = p[3 * v + 2];
      let x;
      let y;
      let z;
      if (spatial) {
        // v' = v + w t + u x t, t = 2 u x v, for the unit quaternion (w, u) = e / |e|
        const n = Math.hypot(q[o + 3], q[o + 4], q[o + 5], q[o + 6]) || 1;
        const w = q[o + 3] / n;
        const ux = q[o + 4] / n;
        const uy = q[o + 5] / n;
        const uz = q[o + 6] / n;
        const tx = 2 * (uy * pz - uz * py);
        const ty = 2 * (uz * px - ux * pz);
        const tz = 2 * (ux * py - uy * px);
        x = q[o] + px + w * tx + (uy * tz - uz * ty);
        y = q[o + 1] + py + w * ty + (uz * tx - ux * tz);
        z = q[o + 2] + pz + w * tz + (ux * ty - uy * tx);
      } else {
        // planar: rotation by theta about z, the body in the plane z = 0
        const c = Math.cos(q[o + 2]);
        const s = Math.sin(q[o + 2]);
        x = q[o] + c * px - s * py;
        y = q[o + 1] + s * px + c * py;
        z = pz;
      }
      const buffer = v < nSeg ? seg : com;
      const k = v < nSeg ? v : v - nSeg;
      buffer.array[3 * k] = x;
      buffer.array[3 * k + 1] = y;
      buffer.array[3 * k + 2] = z;
    }
    seg.needsUpdate = true;
    com.needsUpdate = true;
    for (const m of Object.values(this.meshes)) m.geometry.boundingSphere = null;  // for picking
  }

  // poses[i] = {position, rotation} of body i (THREE.Vector3, THREE.Quaternion)
  update(poses) {
    if (this.linesMode) {
      this.updateLines(poses);
      return;
    }
    const one = new THREE.Vector3(1, 1, 1);
    for (const [kind, list] of Object.entries(this.local)) {
      const mesh = this.meshes[kind];
      list.forEach(({ body, matrix }, k) => {
        const p = poses[body];
        this.pose.compose(p.position, p.rotation, one);
        mesh.setMatrixAt(k, this.world.multiplyMatrices(this.pose, matrix));
      });
      mesh.instanceMatrix.needsUpdate = true;
    }
  }

  // the body under the ray (THREE.Raycaster, set from the camera): {body, point} of the nearest
  // hit (a beam's also `local`, its body point [x, 0, 0]), or null. Rigid bodies first, then
  // the beams' axes within a few thicknesses of the ray.
  pick(raycaster) {
    return this.pickRigid(raycaster) ?? this.beams.pick(raycaster.ray, 2 * this.pickRadius);
  }

  pickRigid(raycaster) {
    if (this.linesMode) {
      // a line or point is hit within a few thicknesses of the cursor's ray
      raycaster.params.Line.threshold = 2 * this.pickRadius;
      raycaster.params.Points.threshold = 2 * this.pickRadius;
      const hits = raycaster.intersectObjects(Object.values(this.meshes), false);
      if (hits.length === 0) return null;
      const h = hits[0];
      const body = h.object === this.meshes.com ? this.centres[h.index].body : this.segments[Math.floor(h.index / 2)].body;
      return { body, point: h.point };
    }
    // the bounds a raycast tests first were computed at an older pose: recomputed from now's
    for (const m of Object.values(this.meshes)) m.boundingSphere = null;
    const hits = raycaster.intersectObjects(Object.values(this.meshes), false);
    for (const h of hits) {
      const kind = Object.keys(this.meshes).find((k) => this.meshes[k] === h.object);
      if (kind && h.instanceId !== undefined) return { body: this.local[kind][h.instanceId].body, point: h.point };
    }
    return null;
  }
}

// The beam bodies of a scene, each drawn as its deformed axis (see the top of this file): a
// polyline through its stations, as instanced bars (one InstancedMesh for the segments of every
// beam, one for the balls at its joints) or, in `lines` mode, one LineSegments. With no beam in the
// scene it draws nothing and costs nothing per frame.
export class BeamAxes {
  constructor(bodies, geometry, materials, scale, lines) {
    this.lines = lines;
    this.radius = 0.5 * scale;  // thinner than a rigid body's links: a beam is slender
    // per beam: its q offset, each station's x, elastic indices and shape columns (flat), the
    // stations its points sit at, and its stations' world points [x0, y0, x1, y1, ...]
    this.beams = [];
    bodies.forEach((b, i) => {
      if (!b.beam) return;
      const st = b.beam.stations;
      this.beams.push({
        body: i,
        offset: b.q_offset,
        stations: st.map((s) => ({ x: s.x, index: Int32Array.from(s.index), shape: Float64Array.from(s.shape.flat()) })),
        points: b.beam.point_stations,
        world: new Float64Array(2 * st.length),
      });
    });
    this.segmentCount = this.beams.reduce((n, b) => n + b.stations.length - 1, 0);
    this.ballCount = this.beams.reduce((n, b) => n + b.points.length, 0);
    this.meshes = [];
    if (this.beams.length === 0) return;
    if (lines) {
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6 * this.segmentCount), 3));
      this.segments = new THREE.LineSegments(g, new THREE.LineBasicMaterial({ color: materials.body.color }));
      this.meshes.push(this.segments);
    } else {
      this.segments = new THREE.InstancedMesh(geometry.bar, materials.body, Math.max(this.segmentCount, 1));
      this.balls = new THREE.InstancedMesh(geometry.ball, materials.joint, Math.max(this.ballCount, 1));
      this.balls.count = this.ballCount;
      this.ballRadius = 1.2 * scale;
      this.meshes.push(this.segments, this.balls);
    }
    this.segments.count = this.segmentCount;
    // the instances move every frame (as InstancedBodies' own)
    for (const m of this.meshes) m.frustumCulled = false;
    this.matrix = new THREE.Matrix4();
    this.a = new THREE.Vector3();
    this.b = new THREE.Vector3();
    this.q = new THREE.Quaternion();
    this.s = new THREE.Vector3();
  }

  addTo(scene3) {
    for (const m of this.meshes) scene3.add(m);
  }

  removeFrom(scene3) {
    for (const m of this.meshes) {
      scene3.remove(m);
      if (m.dispose) m.dispose();
      if (this.lines) {
        m.geometry.dispose();
        m.material.dispose();
      }
    }
  }

  // the world points of every beam's stations at q: p = R + A(theta) ((x, 0) + S(x) q_f)
  place(q) {
    for (const beam of this.beams) {
      const o = beam.offset;
      const c = Math.cos(q[o + 2]);
      const s = Math.sin(q[o + 2]);
      beam.stations.forEach((st, k) => {
        let ux = st.x;
        let uy = 0;
        for (let j = 0; j < st.index.length; ++j) {
          const qf = q[o + 3 + st.index[j]];
          ux += st.shape[2 * j] * qf;
          uy += st.shape[2 * j + 1] * qf;
        }
        beam.world[2 * k] = q[o] + c * ux - s * uy;
        beam.world[2 * k + 1] = q[o + 1] + s * ux + c * uy;
      });
    }
  }

  update(q) {
    if (this.beams.length === 0) return;
    this.place(q);
    if (this.lines) {
      const buffer = this.segments.geometry.attributes.position.array;
      let v = 0;
      for (const { world } of this.beams) {
        for (let k = 0; k + 3 < world.length; k += 2) {
          buffer.set([world[k], world[k + 1], 0, world[k + 2], world[k + 3], 0], 6 * v);
          v += 1;
        }
      }
      this.segments.geometry.attributes.position.needsUpdate = true;
      this.segments.geometry.boundingSphere = null;
      return;
    }
    let segment = 0;
    let ball = 0;
    for (const { world, points } of this.beams) {
      for (let k = 0; k + 3 < world.length; k += 2) {
        // a unit cylinder (axis y) stretched from station a to station b
        this.a.set(world[k], world[k + 1], 0);
        this.b.set(world[k + 2], world[k + 3], 0);
        const d = this.b.clone().sub(this.a);
        const len = Math.max(d.length(), 1e-9);
        this.q.setFromUnitVectors(yAxis, d.divideScalar(len));
        this.a.addScaledVector(d, 0.5 * len);
        this.matrix.compose(this.a, this.q, this.s.set(this.radius, len, this.radius));
        this.segments.setMatrixAt(segment, this.matrix);
        segment += 1;
      }
      for (const k of points) {
        this.a.set(world[2 * k], world[2 * k + 1], 0);
        this.matrix.compose(this.a, new THREE.Quaternion(), this.s.setScalar(this.ballRadius));
        this.balls.setMatrixAt(ball, this.matrix);
        ball += 1;
      }
    }
    this.segments.instanceMatrix.needsUpdate = true;
    this.balls.instanceMatrix.needsUpdate = true;
  }

  // the beam whose drawn axis passes nearest the point where the ray meets the plane z = 0, if
  // within `tolerance` [m]: {body, point (on the drawn axis, world), local: [x, 0, 0]} with x the
  // abscissa interpolated between the segment's stations; null otherwise
  pick(ray, tolerance) {
    if (this.beams.length === 0 || Math.abs(ray.direction.z) < 1e-12) return null;
    const t = -ray.origin.z / ray.direction.z;
    if (t < 0) return null;
    const px = ray.origin.x + t * ray.direction.x;
    const py = ray.origin.y + t * ray.direction.y;
    let best = null;
    for (const { body, world, stations } of this.beams) {
      for (let k = 0; k + 1 < stations.length; ++k) {
        const ax = world[2 * k];
        const ay = world[2 * k + 1];
        const dx = world[2 * k + 2] - ax;
        const dy = world[2 * k + 3] - ay;
        const len2 = dx * dx + dy * dy;
        const u = len2 > 0 ? Math.min(1, Math.max(0, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
        const cx = ax + u * dx;
        const cy = ay + u * dy;
        const d = Math.hypot(px - cx, py - cy);
        if (d <= tolerance && (!best || d < best.d)) {
          const x = stations[k].x + u * (stations[k + 1].x - stations[k].x);
          best = { d, body, point: new THREE.Vector3(cx, cy, 0), local: [x, 0, 0] };
        }
      }
    }
    return best && { body: best.body, point: best.point, local: best.local };
  }

  // the stations' world points as last placed, per beam: [[x, y, 0], ...] (for the browser test)
  drawnPoints() {
    return this.beams.map(({ body, world }) => ({
      body,
      points: Array.from({ length: world.length / 2 }, (_, k) => [world[2 * k], world[2 * k + 1], 0]),
    }));
  }
}
