-- gameloop_spec.lua: a world stepped from a game's own loop (API.md, "game
-- loops"): behaviours asked for between steps hold for the step that
-- applies them, at any dt; world:advance's fixed steps give the same world
-- at any frame rate; render_pos; and their misuse errors.
local steer = require "steer"
local vec2 = steer.vec2
local H = require "spec_helper"

local raises = H.raises

local function open_world(extra)
  local def = { width = 2000, height = 2000, edges = "none", seed = 7 }
  for k, v in pairs(extra or {}) do def[k] = v end
  return steer.world(def)
end

-- One agent arriving at a goal 36 away, the behaviour asked for before every
-- step of frames(k) seconds (the world's own dt is 1/60 throughout).
local function arrive_run(frames, steps)
  local w = open_world()
  local a = w:spawn { pos = { 100, 100 }, max_speed = 2, max_force = 100, radius = 1.5 }
  local goal = vec2(130, 120)
  local closest = math.huge
  for k = 1, steps do
    a:arrive(goal, 10)
    w:step(frames(k))
    local d = a.pos:dist(goal)
    if d < closest then closest = d end
    -- no overshoot: once close, it never gets farther than it has been, plus rounding
    assert.is_true(d <= math.max(closest, 1e-9) * (1 + 1e-6) + 1e-9 or d > 1,
      ("step %d: %.9g from the goal after being %.9g away"):format(k, d, closest))
  end
  return a.pos:dist(goal), a.speed
end

describe("behaviours asked for between steps", function()
  for _, case in ipairs {
    { "step(0.25)", function() return 0.25 end, 400 },
    { "step(0.1)", function() return 0.1 end, 800 },
    { "step(1/30)", function() return 1 / 30 end, 2000 },
    { "frames alternating 1/60 and 1/20", function(k) return k % 2 == 0 and 1 / 60 or 1 / 20 end, 2000 },
  } do
    it("let arrive stop at the goal with " .. case[1] .. " in a world of dt 1/60", function()
      local d, speed = arrive_run(case[2], case[3])
      assert.is_true(d < 0.05, ("%.6g from the goal"):format(d))
      assert.is_true(speed < 0.01, ("still at speed %.6g"):format(speed))
    end)
  end

  -- The same calls made between steps (a game's update) and made inside the
  -- step (a brain): the same world, bit for bit, at a dt the world was not
  -- made with, on one thread and on two.
  local function scene(threads, from_brain)
    local w = open_world { threads = threads, seed = 11 }
    local path = steer.path { { 300, 300 }, { 900, 320 }, { 900, 900 }, radius = 30 }
    local f
    local agents = {}
    local function orders(a, i)
      if i % 4 == 0 then a:wander(); a:arrive(vec2(1000, 1000), 80, 0.5)
      elseif i % 4 == 1 then a:follow_path(path, { mode = "predict" })
      elseif i % 4 == 2 then a:separate(w:neighbors(a, 60)); a:seek(vec2(700, 500)); a:apply(vec2(3, -2), 2)
      else a:pursue(agents[1]) end
    end
    local brain = from_brain and { update = function(self, a) orders(a, self.i) end } or nil
    for i = 1, 48 do
      local a = w:spawn { pos = { 200 + (i % 8) * 40, 200 + math.floor(i / 8) * 40 }, max_speed = 90,
                          max_force = 300, combine = i % 3 == 0 and "priority" or "sum",
                          brain = brain, i = i }
      agents[i] = a
    end
    f = steer.formation { pattern = "wedge", spacing = 25, anchor = vec2(600, 600) }
    for i = 40, 48 do f:add(agents[i]) end
    for k = 1, 120 do
      local dt = k % 3 == 0 and 1 / 20 or 1 / 45
      f:update() -- between steps in both: requests, finished before the brains run
      if not from_brain then
        for i, a in ipairs(agents) do orders(a, i) end
      end
      w:step(dt)
    end
    return w:checksum()
  end

  it("give the same world as the same calls inside the step, on 1 and 2 threads", function()
    local inside = scene(1, true)
    assert.are.equal(inside, scene(1, false))
    assert.are.equal(inside, scene(2, false))
    assert.are.equal(inside, scene(2, true))
  end)

  it("return the force at world.dt and change nothing until the step", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 }, vel = { 10, 0 }, max_speed = 100, max_force = 1e6 }
    local b = w:spawn { pos = { 100, 100 }, vel = { 10, 0 }, max_speed = 100, max_force = 1e6 }
    -- wander twice before a step: two requests, each previewed from the same circle
    local f1, f2 = a:wander(), a:wander()
    assert.are.equal(f1, f2)
    -- seek's force is (desired - vel) * mass / dt at the world's dt
    local s = b:seek(vec2(200, 100))
    H.same(s, (100 - 10) * 60, 0, 1e-6)
    w:step(0.25)
    -- b was asked for 90 more units/s: at 0.25 s that is 360 units/s^2, not 5400
    H.same(b.force, 360, 0, 1e-9)
    H.same(b.vel, 100, 0, 1e-9)
  end)

  it("are dropped with their agent, kept out of snapshots and dropped by a restore", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 } }
    local snap = w:snapshot()
    a:seek(vec2(500, 100))
    raises(function() w:snapshot() end, "world:snapshot called with 1 behaviour request(s) waiting for the next step")
    w:restore(snap)
    w:step()
    H.same(a.vel, 0, 0)
    local b = w:spawn { pos = { 10, 10 } }
    b:seek(vec2(500, 100))
    w:remove(b)
    w:step()
    assert.are.equal(1, w:count())
  end)

  it("keep a path alive until the step that follows it", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 }, max_speed = 50 }
    a:follow_path(steer.path { { 400, 100 }, { 400, 400 } })
    a:follow_path(steer.path { { 100, 400 }, { 400, 400 } }) -- the first is now only the request's
    collectgarbage(); collectgarbage()
    w:step()
    assert.is_true(a.vel.x > 0 and a.vel.y > 0)
  end)
end)

describe("world:advance", function()
  -- A scene with brains and randomness: wanderers and a seeker.
  local function make()
    local w = open_world { width = 800, height = 600, edges = "wrap", seed = 5 }
    local brain = { update = function(_, a) a:wander(); if a.id % 5 == 0 then a:seek(vec2(400, 300), 0.3) end end }
    for i = 1, 30 do w:spawn { pos = { i * 25, 300 + (i % 7) * 20 }, max_speed = 80, brain = brain } end
    return w
  end

  local function run(frames)
    local w = make()
    local total, alpha = 0, nil
    for _, f in ipairs(frames) do
      local n
      n, alpha = w:advance(f)
      total = total + n
    end
    return w, total, alpha
  end

  local function repeated(dt, n)
    local t = {}
    for i = 1, n do t[i] = dt end
    return t
  end

  it("gives the same world at 30, 60 and 144 FPS and with jittery frames", function()
    local w60, n60 = run(repeated(1 / 60, 120))
    assert.are.equal(120, n60)
    assert.are.equal(120, w60.tick)
    local w30 = run(repeated(1 / 30, 60))
    local w144 = run(repeated(1 / 144, 288))
    -- jittery: random frame times that add up to the same 2 seconds
    local rng = open_world { seed = 99 }
    local frames, sum = {}, 0
    while sum < 1.9 do
      local f = 0.004 + rng:random() * 0.03
      frames[#frames + 1] = f
      sum = sum + f
    end
    frames[#frames + 1] = 2 - sum
    local wj = run(frames)
    for _, w in ipairs { w30, w144, wj } do
      assert.are.equal(120, w.tick)
      assert.are.equal(w60:checksum(), w:checksum())
    end
  end)

  it("returns alpha, how far into the next step the frames are", function()
    local w = make()
    local n, alpha = w:advance(1 / 120)
    assert.are.equal(0, n)
    assert.is_true(math.abs(alpha - 0.5) < 1e-9)
    n, alpha = w:advance(1 / 120)
    assert.are.equal(1, n)
    assert.is_true(alpha < 1e-6)
  end)

  it("runs at most max_steps a call and counts what it drops", function()
    local w = make()
    assert.are.equal(8, w.max_steps)
    local n = w:advance(1) -- a stalled frame: 60 steps due
    assert.are.equal(8, n)
    assert.are.equal(52, w.dropped_steps)
    w.max_steps = 100
    assert.are.equal(60, (w:advance(1)))
    raises(function() w.max_steps = 0 end, "must be >= 1")
    raises(function() w.max_steps = 2.5 end, "must be a whole number")
    raises(function() w.dropped_steps = 0 end, "read-only")
  end)

  it("rejects bad frame times", function()
    local w = make()
    raises(function() w:advance() end, "number expected, got no value")
    raises(function() w:advance(-1) end, "must be >= 0")
    raises(function() w:advance(0 / 0) end, "advance")
    assert.are.equal(0, w.tick)
  end)
end)

describe("agent:render_pos", function()
  it("is the position alpha of the way through the last step", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 }, vel = { 60, 0 }, max_speed = 100 }
    H.same(a:render_pos(0), 100, 100) -- no step yet
    w:step()
    H.same(a:render_pos(), a.pos.x, a.pos.y)
    H.same(a:render_pos(1), 101, 100, 1e-9)
    H.same(a:render_pos(0), 100, 100, 1e-9)
    H.same(a:render_pos(0.5), 100.5, 100, 1e-9)
    raises(function() a:render_pos(2) end, "bad argument #1 to 'render_pos' (must be in [0, 1])")
    raises(function() a:render_pos(-1) end, "must be >= 0")
  end)
end)

describe("stop", function()
  it("brings an agent to a standstill where it is, and it stays there facing the same way", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 }, vel = { 80, 30 }, max_speed = 100, max_force = 200 }
    local b = w:spawn { pos = { 100, 300 }, vel = { 80, 30 }, max_speed = 100, max_force = 200,
                        behaviors = { { "stop" } } }
    for _ = 1, 60 do a:stop(); w:step(1 / 30) end
    assert.are.equal(0, a.speed)
    assert.are.equal(0, b.speed)
    local p, h = a.pos, a.heading
    for _ = 1, 120 do a:stop(); w:step(1 / 30) end
    assert.are.equal(p, a.pos)
    assert.are.equal(h, a.heading)
    H.same(h, 80 / math.sqrt(80 * 80 + 30 * 30), 30 / math.sqrt(80 * 80 + 30 * 30), 1e-12)
    assert.are.same({ { "stop" } }, b.behaviors)
    raises(function() a.behaviors = { { "stop", target = { 1, 2 } } } end, "target")
  end)
end)

describe("graze", function()
  it("wanders in bouts: a share stood still, the rest at paces of their own", function()
    local w = open_world { width = 800, height = 600, edges = "wrap", seed = 3 }
    local herd = {}
    for i = 1, 30 do
      herd[i] = w:spawn { pos = { i * 20, 300 }, max_speed = 40,
                          behaviors = { { "graze", rest = 0.4, bout = 3, pace = 0.3 } } }
    end
    local standing, total, speed = 0, 0, 0
    local paces = {}
    for s = 1, 60 * 60 do
      w:step()
      for _, h in ipairs(herd) do
        total = total + 1
        if h.speed == 0 then standing = standing + 1 end
        speed = speed + h.speed
        if s % 30 == 0 and h.speed > 0 then paces[("%.1f"):format(h.speed)] = true end
      end
    end
    local kinds = 0
    for _ in pairs(paces) do kinds = kinds + 1 end
    -- about 40% of the bouts stood (less the braking), the walks at 30..100% of max speed
    assert.is_true(standing / total > 0.25 and standing / total < 0.5, "stood " .. standing / total)
    assert.is_true(speed / total > 0.2 * 40 and speed / total < 0.6 * 40, "mean speed " .. speed / total)
    assert.is_true(kinds > 10, "walking paces vary")
    assert.are.same({ "graze", rest = 0.4, bout = 3, pace = 0.3 }, herd[1].behaviors[1])
  end)

  it("is the same from a brain, on two threads, and refuses bad parameters", function()
    local function run(threads, brain)
      local w = open_world { width = 800, height = 600, edges = "wrap", seed = 8, threads = threads }
      local b = brain and { update = function(_, a) a:graze { rest = 0.5, bout = 2 } end } or nil
      for i = 1, 40 do
        w:spawn { pos = { i * 15, 200 }, max_speed = 30, brain = b,
                  behaviors = not brain and { { "graze", rest = 0.5, bout = 2 } } or nil }
      end
      for _ = 1, 300 do w:step() end
      return w:checksum()
    end
    assert.are.equal(run(1, false), run(2, false))
    assert.are.equal(run(1, false), run(1, true))
    local w = open_world()
    local a = w:spawn {}
    raises(function() a:graze { rest = 2 } end, "bad argument #1 to 'graze' (field 'rest': must be in [0, 1])")
    raises(function() a:graze { bout = 0 } end, "field 'bout': must be > 0")
    raises(function() a:graze { grass = 1 } end, "unknown graze option 'grass'")
    raises(function() a.behaviors = { { "graze", pace = -1 } } end, "field 'pace': must be >= 0")
  end)
end)

describe("agents at rest", function()
  -- Five agents hold their spots (arrive, ORCA) across a corridor too narrow
  -- to pass them without their making room; a sixth walks through them.
  local function line(with_walker)
    local w = open_world { seed = 2 }
    w:add_obstacle { polyline = { { 250, 300 }, { 560, 300 } } }
    w:add_obstacle { polyline = { { 250, 384 }, { 560, 384 } } }
    local homes, guards = {}, {}
    for i = 1, 5 do
      homes[i] = vec2(400, 300 + i * 14)
      guards[i] = w:spawn { pos = homes[i], radius = 5, max_speed = 40, max_force = 400, avoidance = "orca" }
    end
    local walker = with_walker and w:spawn { pos = { 250, 342 }, radius = 5, max_speed = 40, avoidance = "orca" }
    local moved = 0
    for s = 1, 60 * 20 do
      for i, g in ipairs(guards) do g:arrive(homes[i], 20) end
      if walker then walker:arrive(vec2(560, 342), 20) end
      w:step()
      for i, g in ipairs(guards) do moved = math.max(moved, g.pos:dist(homes[i])) end
      if s == 60 * 12 and walker then assert.is_true(walker.pos:dist(vec2(560, 342)) < 1, "the walker got through") end
    end
    return guards, homes, moved
  end

  it("stay at rest while nobody needs to pass", function()
    local guards, homes, moved = line(false)
    assert.are.equal(0, moved)
    for i, g in ipairs(guards) do
      assert.are.equal(homes[i], g.pos)
      assert.are.equal(0, g.speed)
    end
  end)

  it("yield to one that passes, then return to their spots and rest", function()
    local guards, homes, moved = line(true)
    assert.is_true(moved > 1, "someone stepped aside (" .. moved .. ")")
    for i, g in ipairs(guards) do
      assert.is_true(g.pos:dist(homes[i]) < 0.05, ("guard %d is %.3f from its spot"):format(i, g.pos:dist(homes[i])))
      assert.is_true(g.speed < 0.01)
    end
  end)

  -- scripts/doors.lua: 40 units through three doors to a block of slots
  -- (follow_path, then arrive at a formation slot; ORCA and contacts).
  it("come to rest after a group order through doors: no creeping, no turning", function()
    package.path = "scripts/?.lua;" .. package.path
    local scene = require "doors"
    local cfg = scene.config
    local w = steer.world { width = cfg.width, height = cfg.height, edges = cfg.edges, seed = cfg.seed,
                            contacts = cfg.contacts }
    scene.load(w, {})
    local units = {}
    for a in w:agents("unit") do units[#units + 1] = a end
    local steps, tail = 90 * 60, 10 * 60
    local speed, turn, n, last = 0, 0, 0, {}
    for s = 1, steps do
      scene.update(w, w.dt)
      w:step()
      if s > steps - tail then
        for i, a in ipairs(units) do
          speed = speed + a.speed
          if last[i] then
            local atan2 = math.atan2 or math.atan -- luacheck: ignore 143
            turn = turn + math.abs(atan2(last[i]:cross(a.heading), last[i]:dot(a.heading))) / w.dt
          end
          last[i] = a.heading
          n = n + 1
        end
      end
    end
    local home = 0
    for _ in pairs(w.user.arrived) do home = home + 1 end
    assert.are.equal(40, home)
    assert.is_true(speed / n < 0.001 * 60, ("mean speed at rest %.4g"):format(speed / n))
    assert.is_true(turn / n < 0.01, ("facings turn at %.4g rad/s"):format(turn / n))
  end)
end)
