-- motion_spec.lua: orientation apart from velocity (turn_rate, face,
-- look_where_going), match_velocity, Reynolds path following (follow_path's
-- options), follow_leader, queue and steer.formation, from Lua: what they
-- do, their standing entries, their misuse errors, and determinism on 1
-- and 2 threads (API.md, "orientation", "formations").
local steer = require "steer"
local vec2 = steer.vec2
local H = require "spec_helper"

local nan, inf = H.nan, H.inf
local raises, open_world = H.raises, H.open_world

local function angle(a, b)
  return math.abs((math.atan2 or math.atan)(a.x * b.y - a.y * b.x, a.x * b.x + a.y * b.y)) -- luacheck: ignore 143
end

describe("turn_rate", function()
  it("is unlimited by default, so the facing is the direction of travel", function()
    local w = open_world()
    local a = w:spawn { vel = { 0, 50 } }
    assert.are.equal(inf, a.turn_rate)
    a.vel = vec2(-20, 0)
    H.same(a.heading, -1, 0)
  end)

  it("limits how fast the facing turns, every step", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 }, heading = { 1, 0 }, vel = { 0, 100 }, turn_rate = 2 }
    assert.are.equal(2, a.turn_rate)
    local dt = w.dt
    for _ = 1, 200 do
      local before = a.heading
      a:seek(vec2(a.pos.x - 500, a.pos.y - 300))
      w:step()
      assert.is_true(angle(before, a.heading) <= 2 * dt + 1e-12)
    end
    assert.is_true(angle(a.heading, a.vel) < 1e-6, "facing caught up with the velocity")
    a.turn_rate = 0                       -- 0: the facing stays
    local h = a.heading
    a.vel = vec2(0, -100)
    w:step()
    H.same(a.heading, h.x, h.y)
    a.turn_rate = math.huge               -- unlimited again
    w:step()
    H.same(a.heading, 0, -1)
  end)

  it("refuses bad rates at spawn and on assignment", function()
    local w = open_world()
    raises(function() w:spawn { turn_rate = -1 } end, "bad argument #1 to 'spawn'", "turn_rate", "must be >= 0")
    raises(function() w:spawn { turn_rate = nan } end, "turn_rate", "must be >= 0")
    raises(function() w:spawn { turn_rate = "fast" } end, "turn_rate", "number expected, got string")
    local a = w:spawn {}
    raises(function() a.turn_rate = -0.5 end, "invalid value for field 'turn_rate'")
    raises(function() a.turn_rate = nan end, "invalid value for field 'turn_rate'")
    assert.are.equal(inf, a.turn_rate)
    assert.are.equal(0, w:count() - 1)
  end)
end)

describe("face and look_where_going", function()
  it("face turns the facing toward a point or an agent, for one step", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 }, vel = { 100, 0 } }
    local t = w:spawn { pos = { 100, 400 } }
    assert.is_nil(a:face(vec2(100, 0)))
    w:step()
    H.same(a.heading, 0, -1)
    a:face(t)
    w:step()
    assert.is_true(angle(a.heading, vec2(0, 1)) < 0.01)
    w:step()                                  -- no request: looks where it goes
    H.same(a.heading, 1, 0)
    a:face(t)
    a:look_where_going()                      -- the later call wins
    w:step()
    H.same(a.heading, 1, 0)
  end)

  it("work as standing entries, under the turn rate", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 }, vel = { 100, 0 }, turn_rate = 1,
                        behaviors = { { "seek", target = { 3000, 100 } }, { "face", target = { 100, -900 } } } }
    for _ = 1, 120 do w:step() end
    assert.is_true(angle(a.heading, vec2(100, -900) - a.pos) < 0.02)
    assert.is_true(a.vel.x > 100)
    a.behaviors = { { "seek", target = { 3000, 100 } }, "look_where_going" }
    for _ = 1, 120 do w:step() end
    assert.is_true(angle(a.heading, a.vel) < 1e-6)
    assert.are.equal("face", (w:spawn { behaviors = { { "face", target = a } } }).behaviors[1][1])
  end)

  it("misuse raises", function()
    local w = open_world()
    local a = w:spawn {}
    raises(function() a:face() end, "bad argument #1 to 'face'")
    raises(function() a:face("north") end, "bad argument #1 to 'face'")
    raises(function() a.behaviors = { { "face" } } end, "'face' needs field 'target'")
    raises(function() a.behaviors = { { "look_where_going", target = { 1, 2 } } } end,
      "'look_where_going' takes no field 'target'")
  end)
end)

describe("match_velocity", function()
  it("reaches a velocity, or an agent's", function()
    local w = open_world()
    local a = w:spawn { pos = { 2000, 2000 } }
    for _ = 1, 120 do
      local f = a:match_velocity(vec2(60, -30))
      assert.is_true(f:len() <= a.max_force + 1e-9)
      w:step()
    end
    H.same(a.vel, 60, -30, 1e-6)
    local m = w:spawn { vel = { -40, 10 }, max_force = 0 }
    a.behaviors = { { "match_velocity", target = m, time = 0.2 } }
    for _ = 1, 240 do w:step() end
    H.same(a.vel, -40, 10, 1e-6)
    raises(function() a:match_velocity() end, "bad argument #1 to 'match_velocity'")
    raises(function() a:match_velocity(vec2(1, 1), -1) end, "bad argument #2 to 'match_velocity'")
    raises(function() a.behaviors = { { "match_velocity", target = m, time = -1 } } end, "time", "must be >= 0")
  end)
end)

describe("follow_path options", function()
  local function seg_dist(p, a, b)
    local ab, ap = b - a, p - a
    local t = math.max(0, math.min(1, ap:dot(ab) / ab:dot(ab)))
    return p:dist(a + ab * t)
  end

  it("predict mode keeps a fast agent inside a zigzag corridor and ends at the last point", function()
    local pts = {}
    for i = 0, 12 do pts[#pts + 1] = vec2(100 + 200 * i, 1000 + ((i % 2 == 0) and 0 or 60)) end
    local spec = { radius = 25 }
    for i, p in ipairs(pts) do spec[i] = p end
    local path = steer.path(spec)
    local w = open_world()
    local a = w:spawn { pos = pts[1], vel = { 150, 0 } }
    local worst = 0
    for _ = 1, 60 * 25 do
      a:follow_path(path, { mode = "predict", predict = 0.5, offset = 20 })
      w:step()
      local best = math.huge
      for i = 1, #pts - 1 do best = math.min(best, seg_dist(a.pos, pts[i], pts[i + 1])) end
      worst = math.max(worst, best)
    end
    assert.is_true(worst <= 25, ("%.1f from the path"):format(worst))
    assert.is_true(a.pos:dist(pts[#pts]) < 2)
  end)

  it("keeps the waypoint mode, the default", function()
    local path = steer.path { { 100, 100 }, { 300, 100 }, radius = 10 }
    local w = open_world()
    local a, b = w:spawn { pos = { 100, 120 } }, w:spawn { pos = { 100, 120 } }
    for _ = 1, 300 do
      a:follow_path(path)
      b:follow_path(path, { mode = "waypoints" }, 1)
      w:step()
    end
    H.same(a.pos, b.pos.x, b.pos.y)
  end)

  it("takes the options in standing entries, and checks them", function()
    local path = steer.path { { 100, 100 }, { 300, 100 } }
    local w = open_world()
    local a = w:spawn { behaviors = { { "follow_path", path = path, mode = "predict", predict = 1, offset = 5 } } }
    local e = a.behaviors[1]
    assert.are.equal("predict", e.mode)
    assert.are.equal(1, e.predict)
    assert.are.equal(5, e.offset)
    raises(function() a.behaviors = { { "follow_path", path = path, mode = "nearest" } } end,
      "field 'mode'", "invalid option 'nearest'")
    raises(function() a.behaviors = { { "follow_path", path = path, predict = -1 } } end, "predict", "must be >= 0")
    raises(function() a.behaviors = { { "follow_path", path = path, offset = { 1, 2 } } } end, "offset")
    raises(function() a:follow_path(path, { mode = 3 }) end, "bad argument #2 to 'follow_path'", "mode")
    raises(function() a:follow_path(path, { speed = 3 }) end, "unknown follow_path option 'speed'")
    raises(function() a:follow_path(path, { offset = inf }) end, "offset", "finite")
    raises(function() a:follow_path(path, {}, nan) end, "bad argument #3 to 'follow_path'")
  end)
end)

describe("follow_leader and queue", function()
  it("followers end up behind the leader, out of its way", function()
    local w = open_world()
    local l = w:spawn { pos = { 500, 2000 }, max_speed = 60, behaviors = { { "seek", target = { 3800, 2000 } } } }
    local fs = {}
    for i = 1, 6 do
      fs[i] = w:spawn { pos = { 520 + 20 * i, 2000 + (i % 2) * 4 },
                        behaviors = { { "follow_leader", leader = l, distance = 40 },
                                      { "separate", radius = 20, weight = 2 } } }
    end
    for _ = 1, 60 * 15 do w:step() end
    for _, f in ipairs(fs) do
      local rel = f.pos - l.pos
      assert.is_true(rel:dot(l.heading) < 0, "a follower is ahead of the leader")
    end
  end)

  it("queue brakes behind someone ahead, and not otherwise", function()
    local w = open_world()
    local front = w:spawn { pos = { 1000, 1000 }, max_speed = 0 }
    local a = w:spawn { pos = { 975, 1000 }, vel = { 100, 0 } }
    local f = a:queue()
    assert.is_true(f.x < -1, "brakes")
    local b = w:spawn { pos = { 975, 1100 }, vel = { 100, 0 } }
    H.same(b:queue(), 0, 0)
    H.same(a:queue { tag = "nobody" }, 0, 0)     -- only that tag counts
    front.tag = "x"
    assert.is_true(a:queue({ tag = "x", distance = 40 }, 2).x < -1)
    raises(function() a:queue { leader = front } end, "unknown queue option 'leader'")
    raises(function() a:queue { distance = -2 } end, "distance", "must be >= 0")
    raises(function() a:follow_leader() end, "bad argument #1 to 'follow_leader'")
    raises(function() a:follow_leader(a) end, "cannot follow itself")
    raises(function() a:follow_leader(front, { zone = nan }) end, "zone")
    raises(function() a.behaviors = { { "follow_leader" } } end, "'follow_leader' needs field 'leader'")
    raises(function() a.behaviors = { { "queue", leader = front } } end, "'queue' takes no field 'leader'")
  end)
end)

describe("steer.formation", function()
  local function permutations(n)
    local out, p = {}, {}
    for i = 1, n do p[i] = i end
    local function rec(k)
      if k > n then out[#out + 1] = { table.unpack(p) } return end
      for i = k, n do
        p[k], p[i] = p[i], p[k]
        rec(k + 1)
        p[k], p[i] = p[i], p[k]
      end
    end
    rec(1)
    return out
  end

  it("assigns slots by least total distance, also after joins, leaves and a turn", function()
    local w = open_world()
    local l = w:spawn { pos = { 2000, 2000 }, vel = { 30, 0 } }
    local f = steer.formation { pattern = "wedge", spacing = 25, leader = l }
    local members = {}
    local function check()
      local slots, mem = f:slots(), f:members()
      local got = 0
      for _, m in ipairs(mem) do got = got + m.pos:dist(f:slot(m)) end
      local best = math.huge
      for _, p in ipairs(permutations(#mem)) do
        local t = 0
        for i, m in ipairs(mem) do t = t + m.pos:dist(slots[p[i]]) end
        best = math.min(best, t)
      end
      assert.is_true(got <= best + 1e-9, ("assigned %.3f, best %.3f"):format(got, best))
    end
    for i = 1, 5 do
      members[i] = w:spawn { pos = { 1900 + 37 * i % 90, 1950 + 53 * i % 110 } }
      assert.is_true(f:add(members[i]))
      check()
    end
    assert.is_false(f:add(members[1]))
    assert.is_false(f:add(l))
    assert.are.equal(5, f.count)
    assert.are.equal(5, #f)
    assert.is_true(f:remove(members[2]))
    assert.is_false(f:remove(members[2]))
    check()
    l.vel = vec2(-30, 0)                 -- the leader turns around
    f:update()
    check()
    w:remove(members[4])                 -- a member dies
    f:update()
    assert.are.equal(3, f.count)
    check()
    assert.is_nil(f:slot_of(members[2]))
    assert.is_true(f:slot_of(members[1]) >= 1)
    assert.are.equal(l, f.leader)
    assert.are.equal("wedge", f.pattern)
  end)

  it("steers members into every pattern, and into a function's", function()
    local custom = function(i, n) return -20 * i, (i - n / 2) * 5 end
    for _, pattern in ipairs { "wedge", "line", "column", "circle", custom } do
      local w = open_world()
      local f = steer.formation { pattern = pattern, anchor = { 2000, 2000 }, heading = { 0, 1 } }
      for i = 1, 6 do f:add(w:spawn { pos = { 1800 + 60 * i, 1900 } }) end
      for _ = 1, 60 * 15 do
        f:update()
        w:step()
      end
      for _, m in ipairs(f:members()) do
        assert.is_true(m.pos:dist(f:slot(m)) < 1, tostring(pattern))
      end
      H.same(f.anchor, 2000, 2000)
      H.same(f.heading, 0, 1)
    end
  end)

  it("a function pattern gives x, y or a vec2, and is asked again when members change", function()
    local w = open_world()
    local asked = {}
    local f = steer.formation { pattern = function(i, n) asked[#asked + 1] = n return vec2(-10 * i, 0) end,
                                anchor = { 500, 500 } }
    f:add(w:spawn {})
    f:add(w:spawn {})
    assert.are.same({ 1, 2, 2 }, asked)
    H.same(f:slots()[2], 480, 500)
    local bad = steer.formation { pattern = function() return "x" end }
    raises(function() bad:add(w:spawn {}) end, "must return x, y or a vec2")
    local inf_f = steer.formation { pattern = function() return inf, 0 end }
    raises(function() inf_f:add(w:spawn {}) end, "non-finite")
  end)

  it("misuse raises", function()
    local w, w2 = open_world(), open_world()
    raises(function() steer.formation { pattern = "blob" } end, "bad argument #1 to 'formation'",
      "invalid option 'blob'")
    raises(function() steer.formation { pattern = 3 } end, "pattern name or function expected")
    raises(function() steer.formation { spacing = 0 } end, "spacing", "must be > 0")
    raises(function() steer.formation { spacing = nan } end, "spacing")
    raises(function() steer.formation { reassign_angle = 4 } end, "reassign_angle", "must be <= pi")
    raises(function() steer.formation { leader = "me" } end, "leader", "steer.agent expected")
    raises(function() steer.formation { size = 3 } end, "unknown formation field 'size'")
    raises(function() steer.formation { heading = { 0, 0 } } end, "heading", "non-zero")
    raises(function() steer.formation(5) end, "bad argument #1 to 'formation'")
    local f = steer.formation { leader = w:spawn {} }
    raises(function() f:add(w2:spawn {}) end, "agent belongs to another world")
    raises(function() f:add("x") end, "bad argument #1 to 'add'")
    raises(function() f.pattern = "line" end, "read-only")
    raises(function() f.leader = 3 end, "steer.agent expected")
    local m = w:spawn {}
    f:add(m)
    raises(function() f.leader = m end, "a member cannot lead")
    w:remove(m)
    raises(function() f:add(m) end, "removed agent")
    f.leader = nil
    assert.is_nil(f.leader)
  end)
end)

describe("determinism", function()
  local function run(threads)
    local w = steer.world { width = 2000, height = 2000, seed = 5, threads = threads }
    local path = steer.path { { 100, 100 }, { 1900, 200 }, { 1500, 1800 }, { 200, 1500 }, loop = true, radius = 30 }
    local lead = w:spawn { pos = { 100, 100 }, turn_rate = 3,
                           behaviors = { { "follow_path", path = path, mode = "predict" } } }
    local f = steer.formation { pattern = "circle", leader = lead }
    for i = 1, 3000 do
      local k = i % 4
      local a = w:spawn { pos = { w:random() * 2000, w:random() * 2000 }, vel = { w:random() * 60, 0 },
                          turn_rate = (i % 2 == 0) and 4 or math.huge }
      if k == 0 and f.count < 30 then f:add(a)
      elseif k == 1 then a.behaviors = { { "follow_leader", leader = lead }, { "queue" } }
      elseif k == 2 then a.behaviors = { "wander", { "face", target = lead } }
      else a.behaviors = { { "match_velocity", target = lead }, "flock" } end
    end
    for _ = 1, 120 do
      f:update()
      w:step()
    end
    return w:checksum()
  end

  it("gives the same checksum on 1 and 2 threads", function()
    assert.are.equal(run(1), run(2))
  end)
end)
