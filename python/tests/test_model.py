# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""rtmb.load, rtmb.Model: schema, overrides by key path, errors with the engine's message."""
import re

import pytest

import rtmb
from conftest import CONFIGS


def test_every_config_loads_steps_and_runs():
    for path in sorted(CONFIGS.glob("*.yaml")):
        model = rtmb.load(str(path))
        sim = rtmb.Simulation(model)
        assert sim.step(5) == 5, path.name
        assert sim.status["ok"], (path.name, sim.status)
        assert sim.t == pytest.approx(5 * model.dt, rel=1e-12), path.name
        result = sim.run(25 * model.dt, every=5)  # 20 more steps: rows at 5, 10, ..., 25
        assert result.ok and result.steps == 20 and result.flags_seen == 0, path.name
        assert result.q.shape == (5, model.n_q), path.name
        assert result.outputs.shape == (5, len(model.schema["outputs"])), path.name


def test_schema_lists_channels_and_units():
    schema = rtmb.load(str(CONFIGS / "five_bar.yaml")).schema
    assert schema["model"] == "five_bar"
    inputs = dict(schema["inputs"])
    assert inputs["motor_l"] == "N*m" and inputs["target_x"] == "m"
    outputs = dict(schema["outputs"])
    assert outputs["handle.x"] == "m" and outputs["handle_velocity.vy"] == "m/s"
    # a built-in mechanism streams q then v, and takes one generalized force per coordinate
    builtin = rtmb.Model.builtin("pendulum").schema
    assert [name for name, _ in builtin["outputs"]] == ["q0", "q1", "v0", "v1"]
    assert [name for name, _ in builtin["inputs"]] == ["f0", "f1"]
    assert builtin["n_q"] == 2 and builtin["n_lambda"] == 1


def test_override_changes_dt_and_steps_at_it():
    model = rtmb.load(str(CONFIGS / "four_bar.yaml"), overrides={"integration.dt": 5e-4})
    assert model.dt == 5e-4
    sim = rtmb.Simulation(model)
    sim.step(10)
    assert sim.t == pytest.approx(10 * 5e-4, rel=1e-12)


def test_override_of_a_body_mass_changes_the_physics():
    # the pendulum rod starts at rest, so its energy is its potential m g y_c: twice the mass,
    # twice the energy (the centre of mass is where the file puts it either way)
    base = rtmb.Simulation(rtmb.load(str(CONFIGS / "pendulum_body.yaml")))
    heavy = rtmb.Simulation(
        rtmb.load(str(CONFIGS / "pendulum_body.yaml"), overrides={"bodies[0].mass": 2.0}))
    by_name = rtmb.Simulation(
        rtmb.load(str(CONFIGS / "pendulum_body.yaml"), overrides={"bodies[link].mass": 2.0}))
    y_c = -0.25
    assert base.status["energy"] == pytest.approx(1.0 * 9.81 * y_c, rel=1e-12)
    assert heavy.status["energy"] == pytest.approx(2.0 * 9.81 * y_c, rel=1e-12)
    assert by_name.status["energy"] == heavy.status["energy"]


def test_override_is_validated_as_the_file_is():
    with pytest.raises(rtmb.ModelFileError, match=r"key 'integration\.dt': must be > 0"):
        rtmb.load(str(CONFIGS / "four_bar.yaml"), overrides={"integration.dt": -1.0})
    with pytest.raises(rtmb.ModelFileError, match=r"key 'integration\.dtt': unknown key"):
        rtmb.load(str(CONFIGS / "four_bar.yaml"), overrides={"integration.dtt": 1e-3})
    with pytest.raises(rtmb.ModelFileError, match=r"override 'bodies\[7\]\.mass': 'bodies' has 3"):
        rtmb.load(str(CONFIGS / "four_bar.yaml"), overrides={"bodies[7].mass": 1.0})
    # the message names the override that set the bad value
    with pytest.raises(rtmb.ModelFileError, match=r"override 'bodies\[1\]\.mass' = -2"):
        rtmb.load(str(CONFIGS / "four_bar.yaml"), overrides={"bodies[1].mass": -2})


def test_builtin_with_overrides():
    model = rtmb.Model.builtin("andrews", overrides={"integration.dt": 1e-5})
    assert model.dt == 1e-5 and model.name == "andrews"
    with pytest.raises(ValueError, match="unknown"):
        rtmb.Model.builtin("no_such_mechanism")


def test_bad_model_file_names_file_line_column_and_key(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        "name: bad\n"
        "bodies:\n"
        "  - name: link\n"
        "    mass: -1.0\n"
        "    inertia: 0.1\n"
        "    pose: [0, 0, 0]\n")
    with pytest.raises(rtmb.ModelFileError) as err:
        rtmb.load(str(path))
    assert isinstance(err.value, ValueError)
    assert re.match(re.escape(str(path)) + r":4:11: key 'bodies\[0\]\.mass': ", str(err.value)), \
        str(err.value)


def test_missing_file_is_an_error_naming_it(tmp_path):
    path = tmp_path / "missing.yaml"
    with pytest.raises(rtmb.ModelFileError, match=re.escape(str(path))):
        rtmb.load(str(path))
