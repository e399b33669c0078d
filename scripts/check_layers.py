#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
"""Layering check: fails when a lower layer includes a higher one (docs/architecture.md, "Map").

The layers, lowest first, and the folders that make them:

  core     include/rtmb/*.hpp (top level), engine/{model, kkt, dynamics, integrate, stabilize,
           implicit, step, constraints}: the System interface, Model and Settings, the step
           pipeline and its stages
  models   include/rtmb/models/ (but the files below), engine/{multibody, mechanisms}: Systems
  runtime  include/rtmb/runtime/, include/rtmb/runtime.hpp, engine/runtime: the real-time loop,
           input channels, records
  files    include/rtmb/models/{model_file, model_overrides, chain_models, record_model}.hpp,
           engine/model_file: the loader of model files, which builds models and the runtime's
           channel settings from YAML (and a record's model from its header)
  net      include/rtmb/net/, net/: wire format, server, client, view server
  apps     apps/: the command-line program

A file may include its own layer and those listed for it in ALLOWED. Inside core, the stages
(integrate, stabilize, implicit, kkt, dynamics) must not include step-level code (engine/step/),
and Model (engine/model/) includes no stage. A public header (include/rtmb/) never includes an
internal one (engine/). tests/, bench/, fuzz/ and examples/ may include anything.

Usage: scripts/check_layers.py [REPO_ROOT]; prints every violation and exits 1 if there is one.
"""
import re
import sys
from pathlib import Path

from house_check import repo_root, report

ALLOWED = {
    "core": {"core"},
    "models": {"core", "models"},
    "runtime": {"core", "runtime"},
    "files": {"core", "models", "runtime", "files"},
    "net": {"core", "models", "runtime", "files", "net"},
    "apps": {"core", "models", "runtime", "files", "net", "apps"},
}

CORE_ENGINE = {"model", "kkt", "dynamics", "integrate", "stabilize", "implicit", "step",
               "constraints"}
STAGES = {"integrate", "stabilize", "implicit", "kkt", "dynamics"}

# Known exceptions: (including file, included file) -> why. At most three, each explained.
EXCEPTIONS = {
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path: str):
    """The layer of a repository path (an include target or a source), or None (unrestricted)."""
    p = path
    if p.startswith("include/"):
        p = p[len("include/"):]
    if p.startswith("rtmb/"):
        rest = p[len("rtmb/"):]
        if rest.startswith("models/"):
            name = rest[len("models/"):]
            files = ("model_file.hpp", "model_overrides.hpp", "chain_models.hpp", "record_model.hpp")
            return "files" if name in files else "models"
        if rest.startswith("runtime/") or rest == "runtime.hpp":
            return "runtime"
        if rest.startswith("net/"):
            return "net"
        return "core"
    if p.startswith("engine/"):
        parts = p.split("/")
        folder = parts[1] if len(parts) > 2 else ""
        if folder in CORE_ENGINE:
            return "core"
        if folder in ("multibody", "mechanisms"):
            return "models"
        if folder == "runtime":
            return "runtime"
        if folder == "model_file":
            return "files"
        return "core"
    if p.startswith("net/"):
        return "net"
    if p.startswith("apps/"):
        return "apps"
    return None


def engine_folder(path: str):
    parts = path.split("/")
    return parts[1] if parts[0] == "engine" and len(parts) > 2 else None


def check(root: Path):
    problems = []
    used_exceptions = set()
    sources = [p for d in ("include", "engine", "net", "apps") for p in (root / d).rglob("*")
               if p.suffix in (".hpp", ".cpp", ".h")]
    for src in sorted(sources):
        rel = src.relative_to(root).as_posix()
        own = layer_of(rel)
        if own is None:
            continue
        for lineno, line in enumerate(src.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if not (target.startswith("rtmb/") or target.startswith("engine/") or
                    target.startswith("net/") or target.startswith("apps/")):
                continue
            why = None
            dep = layer_of(target)
            if dep is not None and dep not in ALLOWED[own]:
                why = f"{own} layer includes the {dep} layer"
            elif rel.startswith("include/") and target.startswith("engine/"):
                why = "a public header includes an internal one"
            elif engine_folder(rel) in STAGES and engine_folder(target) == "step":
                why = "a step stage includes step-level code"
            elif engine_folder(rel) == "model" and engine_folder(target) in STAGES | {"step"}:
                why = "Model includes a step stage"
            if why is None:
                continue
            key = (rel, target)
            if key in EXCEPTIONS:
                used_exceptions.add(key)
                continue
            problems.append(f"{rel}:{lineno}: includes {target}: {why}")
    for key in EXCEPTIONS:
        if key not in used_exceptions:
            problems.append(f"exception no longer needed, remove it: {key[0]} -> {key[1]}")
    if len(EXCEPTIONS) > 3:
        problems.append(f"{len(EXCEPTIONS)} exceptions; at most 3 are allowed")
    return problems, len(sources)


def main():
    problems, n = check(repo_root())
    return report("check_layers", problems,
                  f"{n} files, {len(problems)} violations, {len(EXCEPTIONS)} exceptions")


if __name__ == "__main__":
    sys.exit(main())
