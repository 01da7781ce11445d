-- Path progress (API.md, "path following"): a.path_index read and written,
-- path:remaining, path:points.
local steer = require "steer"
local vec2 = steer.vec2
local H = require "spec_helper"

local raises, open_world = H.raises, H.open_world

local route = { { 100, 100 }, { 500, 100 }, { 500, 500 }, { 100, 500 } }

describe("path progress", function()
  it("path:points() lists the points in order, a copy each time", function()
    local p = steer.path(route)
    local pts = p:points()
    assert.are.equal(4, #pts)
    for i, q in ipairs(route) do assert.is_true(pts[i] == vec2(q[1], q[2])) end
    pts[1] = false
    assert.is_true(p:points()[1] == vec2(100, 100))
  end)

  it("a.path_index is nil until the agent follows a path, then the waypoint it heads for", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 } }
    local p = steer.path(route)
    assert.is_nil(a.path_index)
    a:follow_path(p)
    w:step()
    assert.are.equal(2, a.path_index) -- the first point reached at once: the second is next
    local seen = { [2] = true }
    for _ = 1, 20 * 60 do
      a:follow_path(p)
      w:step()
      seen[a.path_index] = true
    end
    assert.are.same({ [2] = true, [3] = true, [4] = true }, seen)
    assert.are.equal(4, a.path_index)
  end)

  it("means the same in predict mode: the waypoint that ends the agent's segment", function()
    local w = open_world()
    local a = w:spawn { pos = { 150, 110 } }
    a.behaviors = { { "follow_path", path = steer.path(route), mode = "predict" } }
    w:step()
    assert.are.equal(2, a.path_index)
  end)

  it("writing a.path_index skips waypoints", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 } }
    local p = steer.path(route)
    a:follow_path(p)
    w:step()
    a.path_index = 4
    assert.are.equal(4, a.path_index)
    local closest = math.huge
    for _ = 1, 10 * 60 do
      a:follow_path(p)
      w:step()
      closest = math.min(closest, a.pos:dist(vec2(500, 100)), a.pos:dist(vec2(500, 500)))
    end
    assert.is_true(closest > 100, "came within " .. closest .. " of a skipped waypoint")
    assert.is_true(a.pos:dist(vec2(100, 500)) < 1)
  end)

  it("path:remaining is the straight way to the next waypoint, then along the path", function()
    local p = steer.path { { 0, 0 }, { 100, 0 }, { 100, 100 } }
    assert.near(math.sqrt(2600) + 100, p:remaining({ 50, 10 }), 1e-9)      -- after the nearest point
    assert.near(math.sqrt(10600), p:remaining({ 50, 10 }, 3), 1e-9)
    assert.near(math.sqrt(2600) + 200, p:remaining({ 50, 10 }, 1), 1e-9)
    local loop = steer.path { { 0, 0 }, { 100, 0 }, { 100, 100 }, { 0, 100 }, loop = true }
    assert.near(350, loop:remaining({ 50, 0 }, 2), 1e-9)
    assert.near(50, loop:remaining({ 0, 50 }, 1), 1e-9) -- heading back to the first point: the lap's end
  end)

  it("path:remaining(agent) uses the agent's own index and falls to zero on arrival", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 } }
    local p = steer.path(route)
    assert.near(1200, p:remaining(a), 1e-9)
    local prev = math.huge
    for _ = 1, 20 * 60 do
      a:follow_path(p)
      w:step()
      local r = p:remaining(a)
      assert.is_true(r <= prev + 1e-9, ("rose from %g to %g"):format(prev, r))
      prev = r
    end
    assert.is_true(prev < 1, "left at the end: " .. prev)
  end)

  -- scripts/maze.lua draws each path from the agent through a.path_index
  -- onward: the index names a waypoint of the path, and moves on.
  it("gives maze.lua's path overlay the waypoint each agent heads for", function()
    local runner = require "scene_runner"
    local scene, world = runner.load("maze")
    local with_path, past_first = 0, 0
    runner.run(scene, world, 60 * 15, { each = function()
      for _, tag in ipairs { "hunter", "prey" } do
        for a in world:agents(tag) do
          local p = a.self.path
          if p then
            with_path = with_path + 1
            local i = a.path_index
            assert.is_true(math.type(i) == "integer" and i >= 1 and i <= #p, "path_index " .. tostring(i))
            if i >= 3 then past_first = past_first + 1 end
          end
        end
      end
    end })
    assert.is_true(with_path > 100 and past_first > 0, ("%d agent-ticks on a path, %d past its second waypoint")
      :format(with_path, past_first))
  end)

  it("refuses bad values in Lua's standard form", function()
    local w = open_world()
    local a = w:spawn { pos = { 100, 100 } }
    local p = steer.path(route)
    raises(function() a.path_index = 2 end, "invalid value for field 'path_index' (the agent follows no path)")
    a:follow_path(p)
    w:step()
    raises(function() a.path_index = 0 end, "invalid value for field 'path_index' (must be >= 1)")
    raises(function() a.path_index = 1.5 end, "(must be an integer)")
    raises(function() a.path_index = "x" end, "(number expected, got string)")
    raises(function() p:remaining({ 0 / 0, 1 }) end, "bad argument #1 to 'remaining'", "must be finite")
    raises(function() p:remaining({ 1, 1 }, 0) end, "bad argument #2 to 'remaining' (must be >= 1)")
    w:remove(a)
    raises(function() p:remaining(a) end, "attempt to use a removed agent")
  end)
end)
