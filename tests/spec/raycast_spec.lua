-- world:raycast: exact line of sight against the real geometry (API.md,
-- "raycasts"), and how it differs from nav:visible.
local steer = require "steer"
local vec2 = steer.vec2
local H = require "spec_helper"

local nan, inf = H.nan, H.inf
local raises, same, open_world = H.raises, H.same, H.open_world

describe("world:raycast", function()
  it("hits a circle where it enters it, normal facing the ray", function()
    local w = open_world()
    local o = w:add_obstacle { pos = { 300, 300 }, radius = 20 }
    local h = w:raycast({ 200, 300 }, { 400, 300 })
    assert.are.equal("circle", h.kind)
    assert.are.equal(o, h.obstacle)
    same(h.point, 280, 300)
    same(h.normal, -1, 0)
    assert.near(0.4, h.fraction, 1e-12)
    assert.near(80, h.distance, 1e-12)
    assert.is_nil(h.agent)
    assert.is_nil(h.wall)
    -- 12 off the centre line: 16 before the centre, normal (12, -16) / 20
    h = w:raycast({ 312, 200 }, { 312, 400 })
    same(h.point, 312, 284)
    same(h.normal, 0.6, -0.8)
  end)

  it("names a circle made by world:obstacle through the obstacle's id", function()
    local w = open_world()
    local id = w:obstacle({ 100, 100 }, 10)
    local h = w:raycast({ 0, 100 }, { 200, 100 })
    assert.are.equal(id, h.obstacle.id)
  end)

  it("hits polygon edges and polyline segments from either side", function()
    local w = open_world()
    local box = w:add_obstacle { polygon = { { 400, 400 }, { 500, 400 }, { 500, 500 }, { 400, 500 } } }
    local line = w:add_obstacle { polyline = { { 100, 500 }, { 200, 500 }, { 200, 560 } } }
    local h = w:raycast({ 350, 420 }, { 450, 470 })
    assert.are.equal("polygon", h.kind)
    assert.are.equal(box, h.obstacle)
    same(h.point, 400, 445)
    same(h.normal, -1, 0)
    h = w:raycast({ 150, 580 }, { 150, 450 })
    assert.are.equal("polyline", h.kind)
    assert.are.equal(line, h.obstacle)
    same(h.point, 150, 500)
    same(h.normal, 0, 1)
    h = w:raycast({ 150, 450 }, { 150, 580 })
    same(h.normal, 0, -1)
  end)

  it("ignores a polygon that holds the ray's start, and sees past it", function()
    local w = open_world()
    w:add_obstacle { polygon = { { 400, 400 }, { 500, 400 }, { 500, 500 }, { 400, 500 } } }
    assert.is_nil(w:raycast({ 450, 450 }, { 450, 590 }))
    local id = w:wall({ 420, 560 }, { 480, 560 })
    local h = w:raycast({ 450, 450 }, { 450, 590 })
    assert.are.equal("wall", h.kind)
    assert.are.equal(id, h.wall)
    same(h.point, 450, 560)
  end)

  it("hits walls from both sides and returns the nearest of several hits", function()
    local w = open_world()
    local id = w:wall({ 600, 100 }, { 600, 300 })
    same(w:raycast({ 700, 200 }, { 500, 200 }).normal, 1, 0)
    same(w:raycast({ 500, 150 }, { 700, 150 }).normal, -1, 0)
    local far = w:add_obstacle { pos = { 450, 200 }, radius = 10 }
    local near = w:add_obstacle { pos = { 660, 200 }, radius = 10 }
    local h = w:raycast({ 700, 200 }, { 400, 200 })
    assert.are.equal(near, h.obstacle)
    same(h.point, 670, 200)
    h = w:raycast({ 700, 200 }, { 400, 200 }, { obstacles = false })
    assert.are.equal(id, h.wall)
    h = w:raycast({ 640, 200 }, { 400, 200 }, { walls = false })
    assert.are.equal(far, h.obstacle)
  end)

  it("returns nil for a miss, a ray that stops short and an empty ray", function()
    local w = open_world()
    w:add_obstacle { pos = { 300, 300 }, radius = 20 }
    assert.is_nil(w:raycast({ 320.001, 200 }, { 320.001, 400 }))
    assert.is_nil(w:raycast({ 200, 300 }, { 279, 300 }))
    assert.is_nil(w:raycast({ 200, 300 }, { 200, 300 }))
  end)

  it("sees agents only when asked, by tag, never the ignored one", function()
    local w = open_world()
    local guard = w:spawn { pos = { 100, 100 }, radius = 6, tag = "guard" }
    local other = w:spawn { pos = { 150, 100 }, radius = 5, tag = "cat" }
    local player = w:spawn { pos = { 200, 100 }, radius = 5, tag = "player" }
    assert.is_nil(w:raycast({ 50, 100 }, { 250, 100 }))
    local h = w:raycast({ 50, 100 }, { 250, 100 }, { agents = true })
    assert.are.equal("agent", h.kind)
    assert.are.equal(guard, h.agent)
    same(h.point, 94, 100)
    assert.is_nil(h.obstacle)
    assert.are.equal(other, w:raycast({ 50, 100 }, { 250, 100 }, { agents = true, ignore = guard }).agent)
    h = w:raycast(guard.pos, player.pos, { agents = true, tag = "player" })
    assert.are.equal(player, h.agent)
    same(h.point, 195, 100)
    assert.is_nil(w:raycast({ 50, 100 }, { 250, 100 }, { agents = true, tag = "nobody" }))
    w:remove(other)
    assert.are.equal(player, w:raycast(guard.pos, player.pos, { agents = true }).agent)
  end)

  -- Issue 28's stealth guard: nav:visible keeps the grid's clearance, so a
  -- player against a wall is invisible to it; the raycast sees the player.
  it("sees a player standing against a wall, where nav:visible does not", function()
    local w = open_world { width = 800, height = 600 }
    w:add_obstacle { polygon = { { 300, 100 }, { 320, 100 }, { 320, 400 }, { 300, 400 } } }
    local guard = w:spawn { pos = { 100, 250 }, tag = "guard" }
    local player = w:spawn { pos = { 296, 250 }, radius = 4, tag = "player" } -- touches x = 300
    local hidden = w:spawn { pos = { 340, 200 }, radius = 4, tag = "player" }
    local sight = { agents = true, tag = "player", ignore = guard }
    local h = w:raycast(guard.pos, player.pos, sight)
    assert.are.equal(player, h and h.agent)
    h = w:raycast(guard.pos, hidden.pos, sight)
    assert.are.equal("polygon", h.kind)
    assert.is_false(w:navgrid():visible(guard.pos, player.pos))
  end)

  it("gives the same hits on 1 and 2 threads", function()
    local function run(threads)
      local w = steer.world { width = 800, height = 600, seed = 5, threads = threads }
      w:add_obstacle { pos = { 400, 300 }, radius = 40 }
      w:wall({ 100, 100 }, { 100, 500 })
      for i = 0, 299 do
        w:spawn { pos = { 50 + (i % 20) * 35, 50 + math.floor(i / 20) * 35 }, radius = 4,
                  tag = ({ "a", "b", "c" })[i % 3 + 1], behaviors = { { "wander" } } }
      end
      local out = {}
      for _ = 1, 60 do
        w:step()
        for k = 0, 15 do
          local to = vec2(400, 300) + vec2(math.cos(k * 0.39), math.sin(k * 0.39)) * 500
          local h = w:raycast({ 20, 20 }, to, { agents = true, tag = k % 2 == 0 and "a" or nil })
          out[#out + 1] = h and ("%s %.17g %s"):format(h.kind, h.fraction, h.agent and h.agent.id or "") or "-"
        end
      end
      return table.concat(out, "\n")
    end
    assert.are.equal(run(1), run(2))
  end)

  it("refuses bad arguments in Lua's standard form", function()
    local w = open_world()
    local other = open_world():spawn {}
    raises(function() w:raycast({ nan, 1 }, { 2, 2 }) end, "bad argument #1 to 'raycast'", "must be finite")
    raises(function() w:raycast({ 1, 1 }, { inf, 2 }) end, "bad argument #2 to 'raycast'", "must be finite")
    raises(function() w:raycast({ 1, 1 }) end, "bad argument #2 to 'raycast'")
    raises(function() w:raycast({ 1, 1 }, { 2, 2 }, 5) end, "bad argument #3 to 'raycast' (table expected")
    raises(function() w:raycast({ 1, 1 }, { 2, 2 }, { agents = 1 }) end,
      "bad argument #3 to 'raycast' (field 'agents': boolean expected, got number)")
    raises(function() w:raycast({ 1, 1 }, { 2, 2 }, { tag = 3 }) end, "(field 'tag': string expected, got number)")
    raises(function() w:raycast({ 1, 1 }, { 2, 2 }, { ignore = 3 }) end, "(field 'ignore': steer.agent expected")
    raises(function() w:raycast({ 1, 1 }, { 2, 2 }, { ignore = other }) end,
      "(field 'ignore': agent belongs to another world)")
    raises(function() w:raycast({ 1, 1 }, { 2, 2 }, { wall = true }) end, "(unknown raycast option 'wall')")
  end)
end)
