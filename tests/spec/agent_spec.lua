-- steer agents: fields, validation, heading rules, forces, ids and combine
-- modes (API.md, "agent (vehicle)").
local steer = require "steer"
local H = require "spec_helper"

local EPS, nan, inf = H.EPS, H.nan, H.inf
local error_of, raises, same = H.error_of, H.raises, H.same

local function open_world()
  return H.open_world { width = 10000, height = 10000 }
end

describe("agent", function()
  describe("read/write fields", function()
    local w, a
    before_each(function()
      w = open_world()
      a = w:spawn { pos = { 100, 100 } }
    end)

    it("pos takes every form of point and reads back a vec2", function()
      a.pos = steer.vec2(1, 2)
      same(a.pos, 1, 2)
      a.pos = { x = 3, y = 4 }
      same(a.pos, 3, 4)
      a.pos = { 5, 6 }
      same(a.pos, 5, 6)
      if steer.backend == "ffi" then
        -- LuaJIT's FFI backend reads vector fields as its FFI vec2 (API.md)
        assert.are.equal("cdata", type(a.pos))
        assert.is_true(a.pos == steer.vec2(5, 6) and a.pos:len() == steer.vec2(5, 6):len())
      else
        assert.are.equal("steer.vec2", debug.getmetatable(a.pos).__name)
      end
    end)

    it("vel reads back, truncated to max_speed", function()
      a.vel = { 30, -40 }
      same(a.vel, 30, -40)
      a.max_speed = 10
      a.vel = { 30, 40 }
      same(a.vel, 6, 8, 1e-9)
    end)

    it("lowering max_speed never leaves the agent faster than it", function()
      a.vel = { 100, 0 }
      a.max_speed = 20
      assert.is_true(a.speed <= 20 + 1e-9, "at once: speed " .. a.speed)
      same(a.heading, 1, 0, 1e-12)
      w:step()
      assert.is_true(a.speed <= 20 + 1e-9, "speed " .. a.speed)
    end)

    it("numbers read back", function()
      a.max_speed = 99
      a.max_force = 123
      a.mass = 2.5
      a.radius = 0
      a.wander_distance = 10
      a.wander_radius = 5
      a.wander_jitter = 0
      assert.are.equal(99, a.max_speed)
      assert.are.equal(123, a.max_force)
      assert.are.equal(2.5, a.mass)
      assert.are.equal(0, a.radius)
      assert.are.equal(10, a.wander_distance)
      assert.are.equal(5, a.wander_radius)
      assert.are.equal(0, a.wander_jitter)
    end)

    it("zero is a valid max_speed and max_force", function()
      a.max_speed = 0
      a.max_force = 0
      a:apply({ 100, 0 })
      w:step()
      same(a.pos, 100, 100)
    end)

    it("tag reads back and filters counts", function()
      a.tag = "hunter"
      assert.are.equal("hunter", a.tag)
      assert.are.equal(1, w:count("hunter"))
      a.tag = "prey"
      assert.are.equal(0, w:count("hunter"))
      assert.are.equal(1, w:count("prey"))
    end)

    it("color reads back as {r, g, b}", function()
      a.color = { 1, 128, 255 }
      local c = a.color
      assert.are.same({ 1, 128, 255 }, { c[1], c[2], c[3] })
    end)

    it("combine is 'sum' or 'priority'", function()
      a.combine = "priority"
      assert.are.equal("priority", a.combine)
      a.combine = "sum"
      assert.are.equal("sum", a.combine)
    end)

    it("reject bad values, naming the field", function()
      raises(function() a.pos = nil end, "pos")
      raises(function() a.pos = { nan, 0 } end, "pos")
      raises(function() a.pos = { 0, inf } end, "pos")
      raises(function() a.pos = "here" end, "pos")
      raises(function() a.vel = { inf, 0 } end, "vel")
      raises(function() a.max_speed = -1 end, "max_speed")
      raises(function() a.max_speed = nan end, "max_speed")
      raises(function() a.max_speed = inf end, "max_speed")
      raises(function() a.max_force = -1 end, "max_force")
      raises(function() a.mass = 0 end, "mass")
      raises(function() a.mass = -3 end, "mass")
      raises(function() a.mass = "heavy" end, "mass")
      raises(function() a.radius = -0.1 end, "radius")
      raises(function() a.wander_distance = nan end, "wander_distance")
      raises(function() a.wander_radius = -1 end, "wander_radius")
      raises(function() a.wander_jitter = -1 end, "wander_jitter")
      raises(function() a.combine = "average" end, "average")
      raises(function() a.color = { 256, 0, 0 } end, "color")
      raises(function() a.color = { -1, 0, 0 } end, "color")
      raises(function() a.color = "red" end, "color")
      raises(function() a.tag = {} end, "tag")
    end)

    it("a rejected value leaves the field as it was", function()
      a.max_speed = 80
      a.mass = 3
      error_of(function() a.max_speed = -1 end)
      error_of(function() a.mass = 0 end)
      error_of(function() a.pos = { nan, nan } end)
      assert.are.equal(80, a.max_speed)
      assert.are.equal(3, a.mass)
      same(a.pos, 100, 100)
    end)
  end)

  describe("read-only fields", function()
    it("raise on assignment and keep their value", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 }, vel = { 10, 0 } }
      local values = { id = 5, heading = { 0, 1 }, side = { 1, 0 }, speed = 3, force = { 1, 1 },
                       alive = false, world = steer.world {}, self = {} }
      local id, self = a.id, a.self
      for k, v in pairs(values) do
        raises(function() a[k] = v end, k)
      end
      assert.are.equal(id, a.id)
      assert.is_true(a.alive)
      assert.is_true(rawequal(w, a.world))
      assert.is_true(rawequal(self, a.self))
      same(a.heading, 1, 0)
      assert.near(10, a.speed, EPS)
    end)
  end)

  describe("heading", function()
    it("is the given heading, normalised", function()
      local a = open_world():spawn { heading = { 0, 5 }, vel = { 10, 0 } }
      same(a.heading, 0, 1)
    end)

    it("else the direction of vel", function()
      local a = open_world():spawn { vel = { 0, -3 } }
      same(a.heading, 0, -1)
    end)

    it("else {1, 0}", function()
      local a = open_world():spawn {}
      same(a.heading, 1, 0)
    end)

    it("follows vel while moving and stays when the agent stops", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 }, heading = { 1, 0 }, vel = { 0, 40 } }
      w:step()
      same(a.heading, 0, 1)
      a.vel = { -30, -40 }
      same(a.heading, -0.6, -0.8)
      w:step()
      same(a.heading, -0.6, -0.8)
      a.vel = { 0, 0 }
      w:step()
      same(a.heading, -0.6, -0.8)
    end)

    it("is always a unit vector while steering", function()
      local w = open_world()
      local a = w:spawn { pos = { 500, 500 } }
      for _ = 1, 120 do
        a:wander()
        w:step()
        assert.near(1, a.heading:len(), 1e-9)
      end
    end)
  end)

  describe("side", function()
    it("is the heading turned +90 degrees", function()
      local w = open_world()
      same(w:spawn {}.side, 0, 1)
      local a = w:spawn { vel = { 3, 4 } }
      same(a.side, -0.8, 0.6)
      assert.near(0, a.side:dot(a.heading), EPS)
    end)
  end)

  describe("speed", function()
    it("is |vel|", function()
      local a = open_world():spawn { vel = { 3, 4 } }
      assert.near(5, a.speed, EPS)
      a.vel = { 0, 0 }
      assert.are.equal(0, a.speed)
    end)
  end)

  describe("force and physics", function()
    it("force is the steering force of the last step", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 } }
      same(a.force, 0, 0)
      a:apply({ 10, -20 })
      w:step()
      same(a.force, 10, -20)
      w:step()
      same(a.force, 0, 0)
    end)

    it("integrates f = truncate(sum, max_force), vel += f / mass * dt, pos += vel * dt", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 }, mass = 2 }
      a:apply({ 60, 0 })
      a:apply(steer.vec2(0, 30))
      w:step()
      same(a.force, 60, 30)
      same(a.vel, 0.5, 0.25, 1e-12)
      same(a.pos, 100 + 0.5 / 60, 100 + 0.25 / 60, 1e-12)
    end)

    it("truncates the summed force to max_force", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 }, max_force = 50 }
      a:apply({ 300, 400 })
      w:step()
      same(a.force, 30, 40, 1e-9)
    end)

    it("truncates the velocity to max_speed", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 }, max_speed = 10, max_force = 1e6 }
      a:apply({ 1e5, 0 })
      w:step()
      assert.near(10, a.speed, 1e-9)
    end)

    it("apply takes a weight", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 } }
      a:apply({ 10, 0 }, 3)
      w:step()
      same(a.force, 30, 0)
    end)

    it("apply rejects bad arguments", function()
      local a = open_world():spawn {}
      raises(function() a:apply(nil) end, "bad argument #1 to 'apply'")
      raises(function() a:apply({ nan, 0 }) end, "bad argument #1 to 'apply'")
      raises(function() a:apply({ 1, 0 }, nan) end, "bad argument #2 to 'apply'")
    end)
  end)

  describe("id", function()
    it("is an integer, unique, and never reused after removal", function()
      local w = open_world()
      local seen = {}
      local last = 0
      for round = 1, 5 do
        local batch = {}
        for i = 1, 10 do
          local a = w:spawn {}
          assert.are.equal("integer", math.type(a.id))
          assert.is_nil(seen[a.id], "id reused: " .. a.id)
          assert.is_true(a.id > last, "ids increase with every spawn")
          seen[a.id] = true
          last = a.id
          batch[i] = a
        end
        for i = 1, 10, round % 2 + 1 do w:remove(batch[i]) end
      end
    end)
  end)

  describe("identity", function()
    it("one userdata per agent, so == and table keys work", function()
      local w = open_world()
      local a = w:spawn { pos = { 0, 0 } }
      w:spawn { pos = { 5, 0 } }
      local found = w:nearest({ 1, 0 }, 3)
      assert.is_true(rawequal(a, found))
      local t = { [a] = "me" }
      assert.are.equal("me", t[w:neighbors({ 0, 0 }, 1)[1]])
    end)
  end)

  describe("combine", function()
    it("sum adds everything, then truncates", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 }, max_force = 100 }
      a:apply({ 100, 0 })
      a:apply({ 0, 100 })
      w:step()
      local h = 100 / math.sqrt(2)
      same(a.force, h, h, 1e-9)
    end)

    it("priority lets the first force win", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 }, max_force = 100, combine = "priority" }
      a:apply({ 100, 0 })
      a:apply({ 0, 100 })
      w:step()
      same(a.force, 100, 0, 1e-9)
    end)

    it("priority adds later forces while they still fit", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 }, max_force = 100, combine = "priority" }
      a:apply({ 30, 0 })
      a:apply({ 0, 40 })
      w:step()
      same(a.force, 30, 40, 1e-9)
      a:apply({ 60, 0 })
      a:apply({ 0, 200 })
      w:step()
      assert.near(60, a.force.x, 1e-9)
      assert.is_true(a.force.y > 0, "the second force adds what still fits")
      assert.is_true(a.force:len() <= 100 + 1e-9, "never more than max_force")
    end)
  end)
end)
