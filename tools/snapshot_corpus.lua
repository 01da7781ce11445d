-- snapshot_corpus.lua — writes the seed corpus of fuzz_snapshot
-- (tests/fuzz/corpus_snapshot): small valid snapshot files, each behind the
-- fuzzer's mode byte (0: resealed, 1: raw; see tests/fuzz/fuzz_snapshot.c).
-- Run again whenever ST_SNAPSHOT_FORMAT changes:
--
--   LUA_CPATH='build/?.so;;' lua5.4 tools/snapshot_corpus.lua tests/fuzz/corpus_snapshot

local steer = require "steer"
local dir = assert(arg[1], "usage: snapshot_corpus.lua <dir>")

local function write(name, mode, snap)
  local f = assert(io.open(dir .. "/" .. name, "wb"))
  f:write(string.char(mode), snap:encode())
  f:close()
end

local function wanderers(n)
  local w = steer.world { width = 200, height = 200, seed = 3 }
  for i = 1, n do
    w:spawn { pos = { 20 * i, 30 + 10 * i }, vel = { 5, -3 }, tag = i % 2 == 0 and "b" or "a",
              behaviors = { { "wander" } } }
  end
  for _ = 1, 5 do w:step() end
  return w
end

write("empty", 0, steer.world {}:snapshot())
write("wander6", 0, wanderers(6):snapshot())
write("raw_wander6", 1, wanderers(6):snapshot())

do -- ORCA crowd with per-agent settings
  local w = steer.world { width = 200, height = 200, seed = 5 }
  for i = 1, 8 do
    w:spawn { pos = { 20 * i, 100 }, avoidance = "orca", avoid_range = 30 + i,
              behaviors = { { "seek", target = { 200 - 20 * i, 100 } } } }
  end
  for _ = 1, 5 do w:step() end
  write("orca8", 0, w:snapshot())
end

do -- path followers, obstacles, a wall, a removed agent
  local w = steer.world { width = 300, height = 300, seed = 9 }
  local path = steer.path { { 20, 20 }, { 280, 20 }, { 280, 280 }, loop = true }
  w:add_obstacle { pos = { 150, 150 }, radius = 20 }
  w:add_obstacle { polygon = { { 60, 60 }, { 90, 60 }, { 75, 90 } } }
  w:wall({ 10, 290 }, { 290, 290 })
  local a
  for i = 1, 5 do
    a = w:spawn { pos = { 30 * i, 40 }, behaviors = { { "follow_path", path = path }, { "avoid_obstacles" } } }
  end
  w:remove(a)
  for _ = 1, 5 do w:step() end
  write("path_obstacles", 0, w:snapshot())
end

do -- format 2: orientation records, the motion behaviours' fields
  local w = steer.world { width = 300, height = 300, seed = 13 }
  local path = steer.path { { 20, 20 }, { 280, 20 }, { 280, 280 } }
  local leader = w:spawn { pos = { 150, 150 }, turn_rate = 2, behaviors = { { "wander" } } }
  w:spawn { pos = { 100, 150 }, turn_rate = 4,
            behaviors = { { "follow_leader", leader = leader, distance = 20, zone = 30 }, { "queue", distance = 6 } } }
  w:spawn { pos = { 50, 50 }, behaviors = { { "face", target = leader }, { "wander", weight = 0.5 } } }
  w:spawn { pos = { 60, 60 },
            behaviors = { { "follow_path", path = path, mode = "predict", predict = 0.3, offset = 12 },
                          { "look_where_going" } } }
  w:spawn { pos = { 70, 70 }, behaviors = { { "match_velocity", target = leader, time = 0.2 } } }
  for _ = 1, 5 do w:step() end
  write("motion", 0, w:snapshot())
end

do -- format 3: a path whose segment crosses an off-mesh link carries its mark
  local w = steer.world { width = 120, height = 120, seed = 17 }
  local rows = {}
  for y = 1, 30 do rows[y] = y <= 26 and ("."):rep(14) .. "##" .. ("."):rep(14) or ("."):rep(30) end
  local nav = w:navgrid { tiles = rows, tile = 4 }
  nav:link({ 54, 22 }, { 66, 22 })
  local path = assert(nav:path({ 14, 22 }, { 106, 22 }))
  w:spawn { pos = { 14, 22 }, behaviors = { { "follow_path", path = path } } }
  for _ = 1, 5 do w:step() end
  write("path_links", 0, w:snapshot())
end
