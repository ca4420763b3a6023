#!/usr/bin/env python3
"""The layering the build keeps, checked over every #include of the project's code.

Each folder includes only the folders below it (app -> ui -> backtest -> core; inside core, the
areas in ALLOWED), core/ and backtest/ include no Qt, and ui/ reaches core/net only through the
client side (UI_NET_HEADERS: a client, the embedded exchange, the book mirror and the views the
client hands on), never the exchange's own parts (ExchangeCore, its desks, sessions, journal
replay). Every target publishes the repository root as its include path, so this check, run by
CTest as test_layering (and so by CI), is what enforces the layering.

    scripts/check-layering.py [ROOT]    ROOT: the source tree (default: this script's parent)

Prints each include that breaks a rule and exits 1 if there is one.
"""
import pathlib
import re
import sys

# area: the project folders its files may include besides its own.
ALLOWED = {
    "core/domain": [],
    "core/cli": ["core/domain"],
    "core/engine": ["core/domain", "core/cli"],
    "core/store": ["core/domain", "core/engine"],
    "core/auction": ["core/domain", "core/engine"],
    "core/settlement": ["core/domain", "core/cli", "core/engine"],
    "core/cost": ["core/domain", "core/cli", "core/engine"],
    "core/options": ["core/domain", "core/engine", "core/settlement"],
    "core/procure": ["core/domain", "core/engine", "core/settlement"],
    "core/net": ["core/domain", "core/cli", "core/engine", "core/store", "core/auction", "core/settlement",
                 "core/cost", "core/options", "core/procure"],
    "backtest": ["core"],
    "ui": ["core/domain", "core/engine", "core/settlement", "core/cost", "core/options", "core/net", "backtest"],
    "app": ["core", "backtest", "ui"],
}
# The core/net headers ui/ may include: what a client of the exchange sees.
UI_NET_HEADERS = {"BookMirror.h", "CallReport.h", "EmbeddedExchange.h", "ExchangeClient.h", "ForwardDealer.h",
                  "ForwardDesk.h", "ForwardViews.h", "Journal.h", "OnFill.h", "OptionDealer.h", "OptionViews.h",
                  "ReclaimRate.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')


def area_of(path):
    parts = path.parts
    if parts[0] == "core" and len(parts) > 2:
        return "core/" + parts[1]
    return parts[0] if parts[0] in ("backtest", "ui", "app") else None


def under(folder, prefix):
    return folder == prefix or folder.startswith(prefix + "/")


def problems(root):
    for top in ("core", "backtest", "ui", "app"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in (".h", ".cpp"):
                continue
            rel = path.relative_to(root)
            area = area_of(rel)
            if area is None:
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                if re.match(r"Q[A-Za-z]*(/|$)", target) and area.split("/")[0] in ("core", "backtest"):
                    yield f"{rel}:{number}: includes Qt ({target}); core/ and backtest/ are plain C++"
                    continue
                if not re.match(r"(core|backtest|ui|app)/", target):
                    continue
                folder = str(pathlib.PurePosixPath(target).parent)
                if not (under(folder, area) or any(under(folder, a) for a in ALLOWED[area])):
                    yield f"{rel}:{number}: {area} may not include {target}"
                elif area == "ui" and folder == "core/net" and pathlib.PurePosixPath(target).name not in UI_NET_HEADERS:
                    yield f"{rel}:{number}: ui/ may include only the client side of core/net, not {target}"


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    found = list(problems(root))
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
