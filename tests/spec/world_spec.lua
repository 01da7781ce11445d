-- steer.world: construction, fields, spawn/remove, queries, stepping,
-- randomness and checksums (API.md, "world").
local steer = require "steer"
local H = require "spec_helper"

local nan, inf = H.nan, H.inf
local error_of, raises, same = H.error_of, H.raises, H.same

local function ids(list)
  local out = {}
  for i, a in ipairs(list) do out[i] = a.id end
  return out
end

local function collect(iter)
  local out = {}
  for a in iter do out[#out + 1] = a end
  return out
end

describe("steer", function()
  it("has a version string like 1.0.0", function()
    assert.are.equal("string", type(steer.version))
    assert.is_truthy(steer.version:match("^%d+%.%d+%.%d+"), steer.version)
  end)
end)

describe("steer.world", function()
  describe("construction", function()
    it("has documented defaults", function()
      local w = steer.world {}
      assert.are.equal(800, w.width)
      assert.are.equal(600, w.height)
      assert.near(1 / 60, w.dt, 1e-15)
      assert.are.equal(0, w.tick)
      assert.are.equal(0, w.time)
    end)

    it("works with no table at all", function()
      local w = steer.world()
      assert.are.equal(800, w.width)
    end)

    it("takes width, height, edges and seed", function()
      for _, edges in ipairs { "wrap", "bounce", "none" } do
        local w = steer.world { width = 320, height = 200, edges = edges, seed = 42 }
        assert.are.equal(320, w.width)
        assert.are.equal(200, w.height)
      end
    end)

    it("takes a fixed dt", function()
      local w = steer.world { dt = 1 / 30 }
      assert.near(1 / 30, w.dt, 1e-15)
    end)

    it("takes a grid cell size, 50 by default, and queries agree whatever it is", function()
      assert.are.equal(50, steer.world {}.cell_size)
      local found = {}
      for _, cell in ipairs { 50, 7.5, 130, 5000 } do
        local w = steer.world { width = 1000, height = 700, seed = 9, cell_size = cell }
        assert.are.equal(cell, w.cell_size)
        local first = w:spawn { pos = { 500, 350 } }
        for _ = 1, 400 do w:spawn { pos = { w:random() * 1000, w:random() * 700 } } end
        local near = {}
        for _, a in ipairs(w:neighbors(first, 120)) do near[#near + 1] = a.id end
        found[#found + 1] = table.concat(near, ",")
      end
      assert.is_true(#found[1] > 0)
      for k = 2, #found do assert.are.equal(found[1], found[k]) end
      raises(function() steer.world { cell_size = 0 } end, "cell_size")
      raises(function() steer.world { cell_size = inf } end, "cell_size")
    end)

    it("rejects bad options, naming the option", function()
      raises(function() steer.world { width = 0 } end, "width")
      raises(function() steer.world { width = -5 } end, "width")
      raises(function() steer.world { height = nan } end, "height")
      raises(function() steer.world { height = inf } end, "height")
      raises(function() steer.world { width = "wide" } end, "width")
      raises(function() steer.world { edges = "round" } end, "round")
      raises(function() steer.world { edges = 3 } end, "edges")
      raises(function() steer.world { seed = "x" } end, "seed")
      raises(function() steer.world { seed = 1.5 } end, "seed")
      raises(function() steer.world { dt = 0 } end, "dt")
      raises(function() steer.world { dt = -1 / 60 } end, "dt")
      raises(function() steer.world(5) end, "bad argument #1 to 'world'")
    end)
  end)

  describe("fields", function()
    it("are read only", function()
      local w = steer.world {}
      for _, k in ipairs { "width", "height", "tick", "time", "dt", "cell_size" } do
        local before = w[k]
        error_of(function() w[k] = 1 end)
        assert.are.equal(before, w[k])
      end
    end)

    -- Each world has a metatable of its own (its methods as a table, so a
    -- brain's world:nearest costs a table lookup): fields must still be
    -- each world's, and everything else as with one shared metatable.
    it("are each world's own, next to the methods every world shares", function()
      local w1 = steer.world { width = 300, seed = 5 }
      local w2 = steer.world { width = 700, seed = 6 }
      assert.are.equal(300, w1.width)
      assert.are.equal(700, w2.width)
      w2:step()
      assert.are.equal(0, w1.tick)
      assert.are.equal(1, w2.tick)
      assert.is_true(rawequal(w1.step, w2.step))
      w1.step(w2) -- one world's method, called on another
      assert.are.equal(2, w2.tick)
      assert.is_nil(w1.no_such_field)
      assert.is_nil(w1[1])
      w1.user.x = 1
      assert.are.equal(1, w1.user.x)
      assert.is_nil(w2.user.x)
      raises(function() w1.step(w1:spawn {}) end, "bad argument #1 to 'step' (steer.world expected, got steer.agent)")
      raises(function() w1.nearest(steer.vec2(1, 2), { 0, 0 }, 5) end, "steer.world expected, got steer.vec2")
      raises(function() w1:spawn {}:seek(w2) end, "got steer.world")
      raises(function() getmetatable(w1).__index = nil end, "read-only")
      raises(function() w1.width = 5 end, "read-only")
      raises(function() w1.step = 5 end, "cannot assign to method 'step'")
      assert.matches("^world%(", tostring(w2))
    end)

    it("an agent keeps its world alive", function()
      local a = steer.world { width = 321 }:spawn { pos = { 1, 2 } }
      collectgarbage("collect")
      collectgarbage("collect")
      assert.are.equal(321, a.world.width)
      same(a.pos, 1, 2)
      a.world:step()
      assert.are.equal(1, a.world.tick)
    end)

    it("tick counts steps and time sums their dt", function()
      local w = steer.world {}
      w:step()
      w:step()
      assert.are.equal(2, w.tick)
      assert.near(2 / 60, w.time, 1e-12)
    end)
  end)

  describe("spawn", function()
    it("sets every documented field", function()
      local w = steer.world { edges = "none" }
      local a = w:spawn { pos = { 100, 110 }, vel = { 3, 4 }, heading = { 0, 2 },
                          max_speed = 120, max_force = 300, mass = 2, radius = 9,
                          tag = "prey", color = { 10, 20, 30 }, combine = "priority",
                          wander_distance = 70, wander_radius = 25, wander_jitter = 100 }
      same(a.pos, 100, 110)
      same(a.vel, 3, 4)
      same(a.heading, 0, 1)
      assert.are.equal(120, a.max_speed)
      assert.are.equal(300, a.max_force)
      assert.are.equal(2, a.mass)
      assert.are.equal(9, a.radius)
      assert.are.equal("prey", a.tag)
      assert.are.same({ 10, 20, 30 }, { a.color[1], a.color[2], a.color[3] })
      assert.are.equal("priority", a.combine)
      assert.are.equal(70, a.wander_distance)
      assert.are.equal(25, a.wander_radius)
      assert.are.equal(100, a.wander_jitter)
      assert.is_true(a.alive)
      assert.is_true(rawequal(w, a.world))
    end)

    it("uses the defaults of steer.h for what is not given", function()
      local a = steer.world {}:spawn {}
      same(a.pos, 0, 0)
      same(a.vel, 0, 0)
      same(a.heading, 1, 0)
      assert.are.equal(150, a.max_speed)
      assert.are.equal(400, a.max_force)
      assert.are.equal(1, a.mass)
      assert.are.equal(6, a.radius)
      assert.are.equal("sum", a.combine)
      assert.are.equal(60, a.wander_distance)
      assert.are.equal(30, a.wander_radius)
      assert.are.equal(240, a.wander_jitter)
      assert.are.same({ 200, 200, 200 }, { a.color[1], a.color[2], a.color[3] })
    end)

    it("accepts every form of point", function()
      local w = steer.world { edges = "none" }
      same(w:spawn { pos = steer.vec2(1, 2) }.pos, 1, 2)
      same(w:spawn { pos = { x = 3, y = 4 } }.pos, 3, 4)
      same(w:spawn { pos = { 5, 6 } }.pos, 5, 6)
    end)

    it("truncates the initial velocity to max_speed", function()
      local a = steer.world {}:spawn { pos = { 10, 10 }, vel = { 300, 400 }, max_speed = 50 }
      assert.near(50, a.speed, 1e-9)
      same(a.vel, 30, 40, 1e-9)
    end)

    it("seeds a.self with unknown fields", function()
      local a = steer.world {}:spawn { pos = { 1, 1 }, stamina = 100, mood = "calm", list = { 1, 2 } }
      assert.are.equal("table", type(a.self))
      assert.are.equal(100, a.self.stamina)
      assert.are.equal("calm", a.self.mood)
      assert.are.same({ 1, 2 }, a.self.list)
      assert.is_nil(a.self.pos)
      assert.is_nil(a.self.max_speed)
    end)

    it("gives each agent its own self table", function()
      local w = steer.world {}
      local a, b = w:spawn { stamina = 1 }, w:spawn { stamina = 2 }
      assert.is_false(rawequal(a.self, b.self))
      a.self.stamina = 50
      assert.are.equal(2, b.self.stamina)
      assert.are.equal(50, a.self.stamina)
    end)

    it("rejects bad fields, naming them", function()
      local w = steer.world {}
      raises(function() w:spawn { mass = 0 } end, "mass")
      raises(function() w:spawn { mass = -1 } end, "mass")
      raises(function() w:spawn { max_speed = -1 } end, "max_speed")
      raises(function() w:spawn { max_force = -0.5 } end, "max_force")
      raises(function() w:spawn { radius = -2 } end, "radius")
      raises(function() w:spawn { max_speed = nan } end, "max_speed")
      raises(function() w:spawn { pos = { nan, 0 } } end, "pos")
      raises(function() w:spawn { pos = { inf, 0 } } end, "pos")
      raises(function() w:spawn { vel = "fast" } end, "vel")
      raises(function() w:spawn { heading = { 0, nan } } end, "heading")
      raises(function() w:spawn { combine = "average" } end, "average")
      raises(function() w:spawn { tag = 5 } end, "tag")
      raises(function() w:spawn { color = { 300, 0, 0 } } end, "color")
      raises(function() w:spawn(42) end, "bad argument #1 to 'spawn'")
      assert.are.equal(0, w:count())
    end)
  end)

  describe("remove", function()
    it("removes at once and leaves id and alive readable", function()
      local w = steer.world {}
      local a = w:spawn { pos = { 5, 5 } }
      local b = w:spawn { pos = { 6, 6 } }
      local id = a.id
      w:remove(a)
      assert.are.equal(1, w:count())
      assert.is_false(a.alive)
      assert.are.equal(id, a.id)
      assert.is_true(b.alive)
    end)

    it("makes later use raise 'attempt to use a removed agent'", function()
      local w = steer.world {}
      local a = w:spawn { pos = { 5, 5 } }
      local b = w:spawn { pos = { 6, 6 } }
      w:remove(a)
      local msg = "attempt to use a removed agent"
      raises(function() local _ = a.pos end, msg)
      raises(function() local _ = a.vel end, msg)
      raises(function() local _ = a.self end, msg)
      raises(function() a.pos = { 1, 1 } end, msg)
      raises(function() a.max_speed = 10 end, msg)
      raises(function() a:seek({ 0, 0 }) end, msg)
      raises(function() a:apply({ 1, 0 }) end, msg)
      raises(function() w:neighbors(a, 10) end, msg)
      raises(function() b:pursue(a) end, msg)
    end)

    it("raises when removing twice", function()
      local w = steer.world {}
      local a = w:spawn {}
      w:remove(a)
      error_of(function() w:remove(a) end)
      assert.are.equal(0, w:count())
    end)

    it("rejects what is not an agent", function()
      local w = steer.world {}
      raises(function() w:remove(nil) end, "bad argument #1 to 'remove'")
      raises(function() w:remove({}) end, "bad argument #1 to 'remove'")
    end)

    it("rejects an agent of another world", function()
      local w1, w2 = steer.world {}, steer.world {}
      local a = w1:spawn {}
      error_of(function() w2:remove(a) end)
      assert.is_true(a.alive)
      assert.are.equal(1, w1:count())
    end)
  end)

  describe("count and agents", function()
    local w, a, b, c, d
    before_each(function()
      w = steer.world {}
      a = w:spawn { tag = "prey" }
      b = w:spawn { tag = "hunter" }
      c = w:spawn { tag = "prey" }
      d = w:spawn {}
    end)

    it("count counts all or one tag", function()
      assert.are.equal(4, w:count())
      assert.are.equal(2, w:count("prey"))
      assert.are.equal(1, w:count("hunter"))
      assert.are.equal(0, w:count("nobody"))
    end)

    it("agents iterates live agents in spawn order, the same userdata each time", function()
      local list = collect(w:agents())
      assert.are.equal(4, #list)
      assert.is_true(rawequal(a, list[1]))
      assert.is_true(rawequal(b, list[2]))
      assert.is_true(rawequal(c, list[3]))
      assert.is_true(rawequal(d, list[4]))
    end)

    it("agents filters by tag", function()
      local list = collect(w:agents("prey"))
      assert.are.same({ a.id, c.id }, ids(list))
    end)

    it("skips removed agents and keeps order", function()
      w:remove(b)
      local e = w:spawn { tag = "prey" }
      assert.are.same({ a.id, c.id, d.id, e.id }, ids(collect(w:agents())))
      assert.are.same({ a.id, c.id, e.id }, ids(collect(w:agents("prey"))))
    end)

    it("survives removing the current agent during iteration", function()
      local seen = {}
      for x in w:agents() do
        seen[#seen + 1] = x.id
        w:remove(x)
      end
      assert.are.same({ a.id, b.id, c.id, d.id }, seen)
      assert.are.equal(0, w:count())
    end)

    it("does not visit an agent removed ahead of the iteration", function()
      local seen = {}
      for x in w:agents() do
        seen[#seen + 1] = x.id
        if rawequal(x, a) then w:remove(c) end
      end
      assert.are.same({ a.id, b.id, d.id }, seen)
    end)

    it("rejects a non-string tag", function()
      raises(function() w:count({}) end, "bad argument #1 to 'count'")
      raises(function() w:agents({}) end, "bad argument #1 to 'agents'")
    end)
  end)

  describe("neighbors", function()
    it("returns agents within radius, nearest first, excluding the agent", function()
      local w = steer.world { edges = "none" }
      local me = w:spawn { pos = { 100, 100 } }
      local far = w:spawn { pos = { 140, 100 } }
      local near = w:spawn { pos = { 110, 100 } }
      local mid = w:spawn { pos = { 100, 125 } }
      w:spawn { pos = { 200, 100 } } -- outside
      local list = w:neighbors(me, 50)
      assert.are.same({ near.id, mid.id, far.id }, ids(list))
      assert.is_true(rawequal(near, list[1]))
    end)

    it("filters by tag", function()
      local w = steer.world { edges = "none" }
      local me = w:spawn { pos = { 100, 100 } }
      w:spawn { pos = { 105, 100 }, tag = "hunter" }
      local p1 = w:spawn { pos = { 120, 100 }, tag = "prey" }
      local p2 = w:spawn { pos = { 90, 100 }, tag = "prey" }
      assert.are.same({ p2.id, p1.id }, ids(w:neighbors(me, 50, { tag = "prey" })))
    end)

    it("limits to the view cone centred on the heading", function()
      local w = steer.world { edges = "none" }
      local me = w:spawn { pos = { 100, 100 }, heading = { 1, 0 } }
      local ahead = w:spawn { pos = { 120, 100 } }
      local side = w:spawn { pos = { 100, 130 } }
      w:spawn { pos = { 75, 100 } } -- behind
      local list = w:neighbors(me, 50, { fov = math.rad(270) })
      assert.are.same({ ahead.id, side.id }, ids(list))
      local narrow = w:neighbors(me, 50, { fov = math.rad(90) })
      assert.are.same({ ahead.id }, ids(narrow))
    end)

    it("takes a point, with opts.heading for the cone", function()
      local w = steer.world { edges = "none" }
      local e = w:spawn { pos = { 120, 100 } }
      local n = w:spawn { pos = { 100, 90 } }
      local s = w:spawn { pos = { 100, 125 } }
      assert.are.same({ n.id, e.id, s.id }, ids(w:neighbors({ 100, 100 }, 50)))
      assert.are.same({ s.id }, ids(w:neighbors({ x = 100, y = 100 }, 50, { fov = math.rad(90), heading = { 0, 1 } })))
      error_of(function() w:neighbors(steer.vec2(100, 100), 50, { fov = math.rad(90) }) end)
    end)

    it("measures across the edges of a wrap world", function()
      local w = steer.world { width = 800, height = 600, edges = "wrap" }
      local me = w:spawn { pos = { 5, 5 } }
      local other = w:spawn { pos = { 795, 5 } }
      local corner = w:spawn { pos = { 798, 597 } } -- 7 and 8 away across two edges
      w:spawn { pos = { 400, 300 } }
      local list = w:neighbors(me, 20)
      assert.are.same({ other.id, corner.id }, ids(list))
      local best, dist = w:nearest(me, 20)
      assert.is_true(rawequal(other, best))
      assert.near(10, dist, 1e-9)
    end)

    it("does not wrap in a none world", function()
      local w = steer.world { width = 800, height = 600, edges = "none" }
      local me = w:spawn { pos = { 5, 300 } }
      w:spawn { pos = { 795, 300 } }
      assert.are.equal(0, #w:neighbors(me, 20))
      assert.is_nil(w:nearest(me, 20))
    end)

    it("finds agents at any radius", function()
      local w = steer.world { width = 2000, height = 2000, edges = "none" }
      local me = w:spawn { pos = { 0, 0 } }
      local far = w:spawn { pos = { 1500, 1500 } }
      assert.are.same({ far.id }, ids(w:neighbors(me, 3000)))
    end)

    it("rejects bad arguments", function()
      local w = steer.world {}
      local me = w:spawn {}
      raises(function() w:neighbors(nil, 5) end, "bad argument #1 to 'neighbors'")
      raises(function() w:neighbors(me, -1) end, "bad argument #2 to 'neighbors'")
      raises(function() w:neighbors(me, nan) end, "bad argument #2 to 'neighbors'")
      raises(function() w:neighbors(me, 5, { fov = nan }) end, "bad argument #3 to 'neighbors'")
      raises(function() w:neighbors(me, 5, { tag = 7 }) end, "bad argument #3 to 'neighbors'")
      raises(function() w:neighbors(me, 5, 3) end, "bad argument #3 to 'neighbors'")
    end)
  end)

  describe("nearest", function()
    it("returns the nearest agent and its distance, never the agent itself", function()
      local w = steer.world { edges = "none" }
      local me = w:spawn { pos = { 100, 100 } }
      w:spawn { pos = { 130, 100 } }
      local n = w:spawn { pos = { 100, 80 } }
      local best, dist = w:nearest(me, 50)
      assert.is_true(rawequal(n, best))
      assert.near(20, dist, 1e-9)
    end)

    it("filters by tag and takes a point", function()
      local w = steer.world { edges = "none" }
      w:spawn { pos = { 101, 100 }, tag = "hunter" }
      local p = w:spawn { pos = { 110, 100 }, tag = "prey" }
      local best, dist = w:nearest({ 100, 100 }, 50, "prey")
      assert.is_true(rawequal(p, best))
      assert.near(10, dist, 1e-9)
    end)

    it("returns nil when nothing is in range", function()
      local w = steer.world { edges = "none" }
      local me = w:spawn { pos = { 100, 100 } }
      assert.is_nil(w:nearest(me, 50))
      w:spawn { pos = { 300, 100 } }
      assert.is_nil(w:nearest(me, 50))
      assert.is_nil(w:nearest({ 0, 0 }, 50, "prey"))
    end)

    it("rejects bad arguments", function()
      local w = steer.world {}
      raises(function() w:nearest(nil, 5) end, "bad argument #1 to 'nearest'")
      raises(function() w:nearest({ 0, 0 }, -5) end, "bad argument #2 to 'nearest'")
      raises(function() w:nearest({ 0, 0 }, 5, {}) end, "bad argument #3 to 'nearest'")
    end)

    -- A brain's world:nearest(agent, radius, tag) takes a shorter path
    -- through the checks; everything near it must still answer or raise
    -- as the general one does.
    it("checks the agent form as strictly as any other", function()
      local w = steer.world { edges = "none" }
      local me = w:spawn { pos = { 100, 100 }, tag = "prey" }
      local h = w:spawn { pos = { 130, 100 }, tag = "hunter" }
      assert.is_true(rawequal(h, (w:nearest(me, 50, "hunter"))))
      assert.is_true(rawequal(h, (w:nearest(me, 50, "hunter")))) -- the tag now cached
      assert.is_true(rawequal(h, (w:nearest(me, 50))))
      assert.is_true(rawequal(h, (w:nearest(me, 50, nil))))
      assert.is_true(rawequal(h, (w:nearest(me, 30.5, "hunter"))))
      assert.is_nil(w:nearest(me, 29.5, "hunter"))
      assert.is_nil(w:nearest(me, 50, "nobody"))
      assert.is_nil(w:nearest(me, 0, "hunter"))
      local d = select(2, w:nearest(me, math.maxinteger or 2 ^ 53, "hunter"))
      assert.near(30, d, 1e-9)
      raises(function() w:nearest(me, "50", "hunter") end,
        "bad argument #2 to 'nearest' (number expected, got string)")
      raises(function() w:nearest(me, -1, "hunter") end, "bad argument #2 to 'nearest'")
      raises(function() w:nearest(me, nan, "hunter") end, "bad argument #2 to 'nearest'")
      raises(function() w:nearest(me, inf, "hunter") end, "bad argument #2 to 'nearest'")
      assert.is_nil(w:nearest(me, 50, 7)) -- a number names a tag, as luaL_checkstring converts it
      raises(function() w:nearest(me, 50, {}) end, "bad argument #3 to 'nearest'")
      -- the world must be the agent's own, and a world
      local other = steer.world { edges = "none" }
      raises(function() other:nearest(me, 50, "hunter") end,
        "bad argument #1 to 'nearest' (agent belongs to another world)")
      raises(function() w.nearest(me, me, 50, "hunter") end,
        "bad argument #1 to 'nearest' (steer.world expected, got steer.agent)")
      raises(function() w.nearest(io.stdout, me, 50, "hunter") end,
        "bad argument #1 to 'nearest' (steer.world expected")
      raises(function() w.nearest(nil, me, 50, "hunter") end,
        "bad argument #1 to 'nearest' (steer.world expected, got nil)")
      w:remove(h)
      assert.is_nil(w:nearest(me, 50, "hunter"))
      w:remove(me)
      raises(function() w:nearest(me, 50, "hunter") end, "attempt to use a removed agent")
    end)
  end)

  describe("obstacles and walls", function()
    it("return distinct integer ids", function()
      local w = steer.world {}
      local o1 = w:obstacle({ 100, 100 }, 20)
      local o2 = w:obstacle(steer.vec2(200, 100), 30)
      local w1 = w:wall({ 0, 0 }, { x = 100, y = 0 })
      local w2 = w:wall({ 0, 0 }, { 0, 100 })
      for _, id in ipairs { o1, o2, w1, w2 } do
        assert.are.equal("integer", math.type(id))
      end
      assert.are_not.equal(o1, o2)
      assert.are_not.equal(w1, w2)
    end)

    it("reject bad arguments", function()
      local w = steer.world {}
      raises(function() w:obstacle(nil, 5) end, "bad argument #1 to 'obstacle'")
      raises(function() w:obstacle({ 0, 0 }, -5) end, "bad argument #2 to 'obstacle'")
      raises(function() w:obstacle({ 0, 0 }, nan) end, "bad argument #2 to 'obstacle'")
      raises(function() w:wall({ 0, inf }, { 1, 1 }) end, "bad argument #1 to 'wall'")
      raises(function() w:wall({ 0, 0 }, "x") end, "bad argument #2 to 'wall'")
    end)
  end)

  describe("step", function()
    it("moves agents by their velocity", function()
      local w = steer.world { edges = "none" }
      local a = w:spawn { pos = { 100, 100 }, vel = { 60, -30 } }
      w:step()
      same(a.pos, 101, 99.5, 1e-9)
    end)

    it("takes a dt for one step without changing world.dt", function()
      local w = steer.world { edges = "none" }
      local a = w:spawn { pos = { 100, 100 }, vel = { 60, 0 } }
      w:step(0.5)
      same(a.pos, 130, 100, 1e-9)
      assert.near(1 / 60, w.dt, 1e-15)
      assert.near(0.5, w.time, 1e-12)
      assert.are.equal(1, w.tick)
      w:step()
      assert.near(0.5 + 1 / 60, w.time, 1e-12)
    end)

    it("rejects a bad dt", function()
      local w = steer.world {}
      raises(function() w:step(-1) end, "bad argument #1 to 'step'")
      raises(function() w:step(nan) end, "bad argument #1 to 'step'")
      raises(function() w:step(inf) end, "bad argument #1 to 'step'")
      raises(function() w:step("x") end, "bad argument #1 to 'step'")
      assert.are.equal(0, w.tick)
    end)

    it("wraps positions in a wrap world", function()
      local w = steer.world { width = 800, height = 600, edges = "wrap" }
      local a = w:spawn { pos = { 799.5, 599.5 }, vel = { 60, 60 } }
      w:step()
      assert.near(0.5, a.pos.x, 1e-9)
      assert.near(0.5, a.pos.y, 1e-9)
    end)

    it("keeps agents inside and reflects velocity in a bounce world", function()
      local w = steer.world { width = 800, height = 600, edges = "bounce" }
      local a = w:spawn { pos = { 799, 300 }, vel = { 120, 0 } }
      w:step()
      assert.is_true(a.pos.x <= 800, "x inside")
      assert.is_true(a.vel.x < 0, "x velocity reflected")
    end)
  end)

  describe("random", function()
    it("returns a float in [0, 1) with no argument", function()
      local w = steer.world { seed = 3 }
      for _ = 1, 1000 do
        local r = w:random()
        assert.are.equal("float", math.type(r))
        assert.is_true(r >= 0 and r < 1)
      end
    end)

    it("returns integers in [1, m] and [m, n], covering the range", function()
      local w = steer.world { seed = 3 }
      local seen6, seenr = {}, {}
      for _ = 1, 600 do
        local r = w:random(6)
        assert.are.equal("integer", math.type(r))
        assert.is_true(r >= 1 and r <= 6)
        seen6[r] = true
        local s = w:random(-2, 2)
        assert.are.equal("integer", math.type(s))
        assert.is_true(s >= -2 and s <= 2)
        seenr[s] = true
      end
      for i = 1, 6 do assert.is_true(seen6[i], "random(6) never gave " .. i) end
      for i = -2, 2 do assert.is_true(seenr[i], "random(-2, 2) never gave " .. i) end
      assert.are.equal(5, w:random(5, 5))
    end)

    it("accepts floats with an integer value, like math.random", function()
      local w = steer.world {}
      local r = w:random(3.0)
      assert.are.equal("integer", math.type(r))
    end)

    it("gives a whole random integer for random(0), like math.random", function()
      local w = steer.world {}
      assert.are.equal("integer", math.type(w:random(0)))
    end)

    it("raises the errors math.random raises", function()
      local w = steer.world {}
      raises(function() w:random(-1) end, "bad argument #1 to 'random' (interval is empty)")
      raises(function() w:random(3, 1) end, "bad argument #1 to 'random' (interval is empty)")
      raises(function() w:random(1.5) end, "bad argument #1 to 'random'")
      raises(function() w:random("x") end, "bad argument #1 to 'random'")
      raises(function() w:random(1, 2, 3) end, "wrong number of arguments")
    end)

    it("repeats with the seed and differs between seeds", function()
      local function draws(seed)
        local w = steer.world { seed = seed }
        local out = {}
        for i = 1, 20 do out[i] = w:random(1000000) end
        return out
      end
      assert.are.same(draws(7), draws(7))
      assert.are_not.same(draws(7), draws(8))
    end)

    it("is a stream of the world, apart from math.random", function()
      local w1, w2 = steer.world { seed = 11 }, steer.world { seed = 11 }
      local a = w1:random()
      math.random() -- stock Lua: the standard stream is separate
      assert.are.equal(a, w2:random())
    end)
  end)

  describe("checksum", function()
    local function run(seed)
      local w = steer.world { seed = seed }
      for _ = 1, 20 do
        w:spawn { pos = { w:random() * 800, w:random() * 600 } }
      end
      for _ = 1, 60 do
        for a in w:agents() do a:wander() end
        w:step()
      end
      return w:checksum()
    end

    it("is 16 lowercase hex digits, the form the app prints (exact on every Lua)", function()
      local c = steer.world {}:checksum()
      assert.are.equal("string", type(c))
      assert.is_truthy(c:match("^[0-9a-f]+$") and #c == 16, c)
      local w = steer.world { seed = 3 }
      w:spawn { pos = { 1, 2 } }
      assert.are_not.equal(c, w:checksum())
    end)

    it("is the same for the same seed and script", function()
      assert.are.equal(run(5), run(5))
    end)

    it("differs between seeds", function()
      assert.are_not.equal(run(5), run(6))
    end)

    it("changes when an agent moves", function()
      local w = steer.world {}
      local a = w:spawn { pos = { 10, 10 } }
      local before = w:checksum()
      a.pos = { 11, 10 }
      assert.are_not.equal(before, w:checksum())
    end)
  end)

  describe("mark", function()
    it("returns the tick and leaves the world (and its checksum) alone", function()
      local w = steer.world { seed = 3 }
      w:spawn { pos = { 10, 10 }, vel = { 5, 0 } }
      w:step(); w:step()
      local before = w:checksum()
      assert.are.equal(2, w:mark("catch"))
      assert.are.equal(before, w:checksum())
    end)
    it("rejects a label that is not a string of 1 to 64 bytes", function()
      local w = steer.world {}
      raises(function() w:mark() end, "bad argument #1 to 'mark'", "string expected")
      raises(function() w:mark({}) end, "bad argument #1 to 'mark'")
      raises(function() w:mark("") end, "bad argument #1 to 'mark'", "1 to 64")
      raises(function() w:mark(string.rep("x", 65)) end, "1 to 64")
    end)
  end)
end)
