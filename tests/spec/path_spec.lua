-- steer.path: an immutable polyline for follow_path (API.md, "world" and
-- follow_path).
local steer = require "steer"
local vec2 = steer.vec2
local H = require "spec_helper"

local nan, inf = H.nan, H.inf
local error_of, raises, open_world = H.error_of, H.raises, H.open_world

local square = { { 100, 100 }, { 300, 100 }, { 300, 300 }, { 100, 300 } }

-- Follows `path` from (50, 50) for `steps` steps; returns the agent and the
-- closest it came to each point of `square`.
local function follow(path, steps)
  local w = open_world()
  local a = w:spawn { pos = { 50, 50 } }
  local closest = { inf, inf, inf, inf }
  for _ = 1, steps do
    a:follow_path(path)
    w:step()
    for i, p in ipairs(square) do
      closest[i] = math.min(closest[i], a.pos:dist(p))
    end
  end
  return a, closest
end

describe("steer.path", function()
  describe("construction", function()
    it("takes every form of point", function()
      local p = steer.path { vec2(0, 0), { x = 100, y = 0 }, { 100, 100 } }
      assert.are.equal("userdata", type(p))
    end)

    it("has a length, indexed points and points()", function()
      local p = steer.path { vec2(0, 0), { x = 100, y = 0 }, { 100, 50 } }
      assert.are.equal(3, #p)
      assert.is_true(p[2] == vec2(100, 0))
      assert.is_true(p[3] == vec2(100, 50))
      assert.is_nil(p[4])
      local pts = p:points()
      assert.are.equal(3, #pts)
      assert.is_true(pts[1] == vec2(0, 0))
    end)

    it("has a radius of 20 by default, and takes one", function()
      assert.are.equal(20, steer.path({ { 0, 0 }, { 10, 0 } }).radius)
      assert.are.equal(35, steer.path({ { 0, 0 }, { 10, 0 }, radius = 35 }).radius)
    end)

    it("takes a loop flag", function()
      assert.is_true(steer.path({ { 0, 0 }, { 10, 0 }, loop = true }).loop)
      assert.is_false(steer.path({ { 0, 0 }, { 10, 0 } }).loop)
    end)

    it("is immutable", function()
      local p = steer.path { { 0, 0 }, { 10, 0 } }
      error_of(function() p.radius = 5 end)
      error_of(function() p.loop = true end)
      assert.are.equal(20, p.radius)
    end)

    it("takes a single point", function()
      local a = follow(steer.path { { 200, 200 } }, 900)
      assert.is_true(a.pos:dist(vec2(200, 200)) < 2, "arrives at the only point: " .. tostring(a.pos))
    end)

    it("rejects bad input", function()
      raises(function() steer.path {} end, "bad argument #1 to 'path'")
      raises(function() steer.path() end, "bad argument #1 to 'path'")
      raises(function() steer.path "abc" end, "bad argument #1 to 'path'")
      raises(function() steer.path { { 0, 0 }, { nan, 0 } } end, "bad argument #1 to 'path'")
      raises(function() steer.path { { 0, 0 }, { 0, inf } } end, "bad argument #1 to 'path'")
      raises(function() steer.path { { 0, 0 }, "here" } end, "bad argument #1 to 'path'")
      raises(function() steer.path { { 0, 0 }, radius = 0 } end, "radius")
      raises(function() steer.path { { 0, 0 }, radius = -3 } end, "radius")
      raises(function() steer.path { { 0, 0 }, radius = nan } end, "radius")
    end)
  end)

  describe("following", function()
    it("an open path ends at its last point", function()
      local a, closest = follow(steer.path(square), 1200)
      for i = 1, 4 do assert.is_true(closest[i] <= 20, "reached point " .. i) end
      assert.is_true(a.pos:dist(vec2(100, 300)) < 2, "ends at the last point: " .. tostring(a.pos))
      assert.is_true(a.speed < 1)
    end)

    it("a loop keeps going", function()
      local loop = { square[1], square[2], square[3], square[4], loop = true }
      local a = follow(steer.path(loop), 1200)
      assert.is_true(a.speed > 50, "still moving after 20 s: " .. a.speed)
    end)

    it("switches to the next point within the path's radius", function()
      local _, tight = follow(steer.path { square[1], square[2], square[3], radius = 4 }, 900)
      local _, loose = follow(steer.path { square[1], square[2], square[3], radius = 80 }, 900)
      assert.is_true(tight[2] <= 4, "a tight path reaches its corner: " .. tight[2])
      assert.is_true(loose[2] > 10, "a loose path cuts its corner: " .. loose[2])
    end)

    it("is shared by agents of different worlds", function()
      local path = steer.path { { 100, 100 }, { 300, 100 } }
      local w1, w2 = open_world(), open_world()
      local a = w1:spawn { pos = { 50, 50 } }
      local b = w2:spawn { pos = { 50, 150 } }
      for _ = 1, 900 do
        a:follow_path(path)
        b:follow_path(path)
        w1:step()
        w2:step()
      end
      assert.is_true(a.pos:dist(vec2(300, 100)) < 2)
      assert.is_true(b.pos:dist(vec2(300, 100)) < 2)
    end)

    it("lives as long as a standing behaviour uses it", function()
      local w = open_world()
      local a = w:spawn { pos = { 50, 50 } }
      a.behaviors = { { "follow_path", path = steer.path { { 100, 100 }, { 300, 100 } } } }
      collectgarbage("collect")
      collectgarbage("collect")
      for _ = 1, 900 do w:step() end
      assert.is_true(a.pos:dist(vec2(300, 100)) < 2, "followed the path: " .. tostring(a.pos))
    end)

    it("a new path restarts from its first point", function()
      local w = open_world()
      local a = w:spawn { pos = { 50, 50 } }
      local p1 = steer.path { { 100, 100 }, { 300, 100 } }
      for _ = 1, 900 do a:follow_path(p1) w:step() end
      local p2 = steer.path { { 300, 300 }, { 100, 300 } }
      local closest = inf
      for _ = 1, 900 do
        a:follow_path(p2)
        w:step()
        closest = math.min(closest, a.pos:dist(vec2(300, 300)))
      end
      assert.is_true(closest <= 20, "visited the new path's first point")
      assert.is_true(a.pos:dist(vec2(100, 300)) < 2)
    end)
  end)
end)
