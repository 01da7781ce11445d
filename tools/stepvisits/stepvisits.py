# stepvisits.py — gdb script: follows the app through one step (the one
# after tick TICK, env STEPVISITS_TICK, default 100) and counts the visits to
# app/record.c and app/scene.c: entries into a function of the file whose
# nearest caller in app/ is in another file (a call through Lua, such as
# require running the module searcher, counts from the app file that made
# it). Needs a -O0 -g -fno-inline build of the app.
#
#   cmake -S . -B build-dbg -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS="-O0 -g -fno-inline"
#   cmake --build build-dbg --target steer_app
#   cd into a copy of tests/app/scenes/replay_scene.lua and replay_brain.lua, then
#   (v1.lua: replay_brain.lua with SPEEDUP = 3.0):
#   build-dbg/steer --headless --ticks 240 --record base.rec --reload-at 100:replay_brain.lua=v1.lua replay_scene.lua
#   awk '{print} /^mark 100 reload/{print "mouse 100 0x1p+5 0x1.8p+4"; print "key 100 k";
#        print "click 100 0x1.9p+6 0x1.2cp+7 1"; print "console 100 world:spawn{pos={10,10}}";
#        print "scale 100 speed 0x1.199999999999ap+0"}' base.rec >step.rec
#   gdb -q -batch -x tools/stepvisits/stepvisits.py --args build-dbg/steer --headless --replay step.rec
#
# The window's frame F instead (its inputs and steps, up to its drawing),
# under Xvfb with live.ev = "2 key Space / 5 key K / 5 click-world 300 250 /
# 5 key N" (one line each: pause, then a key, a click and one step):
#
#   STEPVISITS_FRAME=5 SDL_VIDEODRIVER=x11 xvfb-run -a gdb -q -batch -x tools/stepvisits/stepvisits.py \
#       --args build-dbg/steer replay_scene.lua --frames 10 --events live.ev
import os
import gdb

TICK = int(os.environ.get("STEPVISITS_TICK", "100"))
FRAME = os.environ.get("STEPVISITS_FRAME")
FILES = ("record.c", "scene.c")
state = {"active": False, "done": False}
log = []


def app_file(frame):
    while frame is not None:
        sal = frame.find_sal()
        if sal.symtab is not None and "/app/" in sal.symtab.filename:
            return os.path.basename(sal.symtab.filename)
        frame = frame.older()
    return None


class Entry(gdb.Breakpoint):
    def stop(self):
        if not state["active"]:
            return False
        f = gdb.newest_frame()
        callee = os.path.basename(f.find_sal().symtab.filename)
        caller = app_file(f.older())
        if caller != callee:
            log.append((callee, f.name(), caller))
        return False


class Step(gdb.Breakpoint):
    """The span followed: app_step's call after tick TICK up to the next
    one, or with STEPVISITS_FRAME=F the window's frame F (run_frame) up to
    its drawing: its inputs and steps (pause first and press N: one step)."""

    def stop(self):
        run = int(gdb.parse_and_eval("frame_no" if FRAME else "a->steps_run"))
        TICK = int(FRAME) if FRAME else globals()["TICK"]
        if run == TICK and not state["done"]:
            state["active"] = True
            Entry.stop(self)
        elif run == TICK + 1 and state["active"]:
            state["active"] = False
            state["done"] = True
        return False


gdb.execute("set pagination off")
gdb.execute("set breakpoint pending off")
funcs = {}
cur = None
for line in gdb.execute("info functions", to_string=True).splitlines():
    if line.startswith("File "):
        cur = os.path.basename(line[5:].rstrip(":"))
        continue
    if cur in FILES and "(" in line:
        name = line.split("(")[0].split()[-1].lstrip("*")
        funcs.setdefault(cur, set()).add(name)
for f, names in funcs.items():
    for n in sorted(names):
        if FRAME or n != "app_step":
            Entry("%s:%s" % (f, n), internal=True)
Step("window.c:run_frame" if FRAME else "app_step", internal=True)


class Drawn(gdb.Breakpoint):
    """A frame's span ends where it starts drawing: the UI's reads are not the step."""

    def stop(self):
        if state["active"]:
            state["active"] = False
            state["done"] = True
        return False


if FRAME:
    Drawn("render_frame", internal=True)
gdb.execute("run")
counts = {f: 0 for f in FILES}
for callee, fn, caller in log:
    counts[callee] = counts.get(callee, 0) + 1
    print("visit %-9s %-28s from %s" % (callee, fn, caller))
what = "one frame (%s)" % FRAME if FRAME else "one step (tick %d -> %d)" % (TICK, TICK + 1)
# the back and forth the issue is about: calls from one of the two files straight into the other
cross = sum(1 for callee, fn, caller in log if {callee, caller} == set(FILES))
print("stepvisits: %s: record.c %d visits, scene.c %d visits; %d calls between record.c and scene.c"
      % (what, counts["record.c"], counts["scene.c"], cross))
