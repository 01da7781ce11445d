-- world:navgrid, nav:path / visible / blocked / cells / flow_field,
-- steer.flowfield and follow_flow (API.md, "Navigation").
local steer = require "steer"
local vec2 = steer.vec2
local H = require "spec_helper"

local raises = H.raises

-- A 400 x 300 room split by a wall with a gap at the bottom (y 240..300).
local function room(opts)
  local w = steer.world { width = 400, height = 300, edges = "bounce", seed = 3, threads = opts and opts.threads }
  w:add_obstacle { polygon = { { 190, 0 }, { 210, 0 }, { 210, 240 }, { 190, 240 } } }
  return w
end

-- Least distance from segment a-b to the wall rectangle, by sampling.
local function wall_distance(a, b)
  local best = math.huge
  for i = 0, 400 do
    local p = a + (b - a) * (i / 400)
    local dx = math.max(190 - p.x, 0, p.x - 210)
    local dy = math.max(0 - p.y, 0, p.y - 240)
    best = math.min(best, math.sqrt(dx * dx + dy * dy))
  end
  return best
end

describe("navigation", function()
  describe("world:navgrid", function()
    it("covers the world with cells and reads back its settings", function()
      local nav = room():navgrid { cell = 10, clearance = 6 }
      assert.are.equal(40, nav.cols)
      assert.are.equal(30, nav.rows)
      assert.are.equal(10, nav.cell)
      assert.are.equal(6, nav.clearance)
      assert.is_true(nav:blocked(vec2(200, 100)))
      assert.is_false(nav:blocked(vec2(100, 100)))
      assert.is_true(nav:blocked(19, 5))
      assert.is_true(nav:blocked(-1, 0), "outside the grid")
      assert.is_true(#nav:cells() > 0)
      assert.truthy(tostring(nav):find("navgrid(40x30", 1, true))
    end)

    it("defaults to cells of 10 and a clearance of 6", function()
      local nav = room():navgrid()
      assert.are.equal(10, nav.cell)
      assert.are.equal(6, nav.clearance)
    end)

    it("rejects bad settings clearly", function()
      local w = room()
      raises(function() w:navgrid { cell = 0 } end, "bad argument #1 to 'navgrid'", "cell", "must be > 0")
      raises(function() w:navgrid { cell = -1 } end, "cell")
      raises(function() w:navgrid { clearance = -1 } end, "clearance")
      raises(function() w:navgrid { cell = 0 / 0 } end, "cell")
      raises(function() w:navgrid { cel = 5 } end, "unknown field 'cel'")
      raises(function() w:navgrid { cell = "big" } end, "cell")
      raises(function() w:navgrid(5) end, "bad argument #1 to 'navgrid'")
      raises(function() w:navgrid { cell = 1e-3 } end, "too small")
    end)

    it("is read-only", function()
      local nav = room():navgrid()
      raises(function() nav.cell = 5 end, "read-only")
      raises(function() return nav.nope end, "no field 'nope'")
    end)
  end)

  describe("nav:path", function()
    it("goes round the wall, keeping the clearance, start and goal exact", function()
      local nav = room():navgrid { cell = 10, clearance = 6 }
      local p = assert(nav:path({ 100, 50 }, { 300, 50 }))
      local pts = p:points()
      assert.is_true(pts[1] == vec2(100, 50))
      assert.is_true(pts[#pts] == vec2(300, 50))
      local len = 0
      for i = 2, #pts do
        assert.is_true(wall_distance(pts[i - 1], pts[i]) >= 6 - 0.03, "segment " .. i)
        len = len + pts[i - 1]:dist(pts[i])
      end
      -- at least the way under the wall's end; not much more
      local low = vec2(100, 50):dist(vec2(190, 246)) + 20 + vec2(210, 246):dist(vec2(300, 50))
      assert.is_true(len >= low - 1 and len <= low * 1.03, "length " .. len .. " vs " .. low)
      assert.is_false(p.loop)
      assert.are.equal(10, p.radius)
    end)

    it("takes a waypoint radius", function()
      local nav = room():navgrid()
      assert.are.equal(25, nav:path({ 100, 50 }, { 300, 50 }, 25).radius)
      raises(function() nav:path({ 100, 50 }, { 300, 50 }, 0) end, "bad argument #3 to 'path'")
    end)

    it("returns nil and a reason when there is no way", function()
      local w = room()
      w:add_obstacle { polygon = { { 190, 240 }, { 210, 240 }, { 210, 300 }, { 190, 300 } } }
      local nav = w:navgrid()
      local p, why = nav:path({ 100, 50 }, { 300, 50 })
      assert.is_nil(p)
      assert.are.equal("no route", why)
      p, why = nav:path({ 100, 50 }, { 500, 50 })
      assert.is_nil(p)
      assert.are.equal("outside the world", why)
      p, why = nav:path({ 200, 100 }, { 100, 50 })
      assert.is_nil(p)
      assert.are.equal("start blocked", why)
      p, why = nav:path({ 100, 50 }, { 200, 100 })
      assert.is_nil(p)
      assert.are.equal("goal blocked", why)
    end)

    it("follows obstacles that move and go", function()
      local w = room()
      local door = w:add_obstacle { pos = { 200, 270 }, radius = 30 }
      local nav = w:navgrid()
      local _, why = nav:path({ 100, 50 }, { 300, 50 })
      assert.are.equal("no route", why)
      door.pos = vec2(50, 250)
      assert.truthy(nav:path({ 100, 50 }, { 300, 50 }))
      w:remove_obstacle(door)
      assert.is_true(nav:update() > 0, "the cells under the door are recomputed")
      assert.are.equal(0, nav:update())
      assert.truthy(nav:path({ 100, 50 }, { 300, 50 }))
    end)

    it("checks its arguments", function()
      local nav = room():navgrid()
      raises(function() nav:path({ 100, 50 }) end, "bad argument #2 to 'path'")
      raises(function() nav:path(nil, { 1, 1 }) end, "bad argument #1 to 'path'")
      raises(function() nav.path(5, { 1, 1 }, { 2, 2 }) end, "steer.navgrid expected")
      raises(function() nav:path({ 0 / 0, 1 }, { 2, 2 }) end, "bad argument #1 to 'path'")
    end)
  end)

  describe("nav:visible", function()
    it("is false through the wall and within the clearance, true past it", function()
      local nav = room():navgrid { clearance = 6 }
      assert.is_false(nav:visible({ 100, 100 }, { 300, 100 }))
      assert.is_true(nav:visible({ 100, 260 }, { 300, 260 }))
      assert.is_false(nav:visible({ 100, 244 }, { 300, 244 }))
      raises(function() nav:visible({ 1, 1 }) end, "bad argument #2 to 'visible'")
    end)
  end)

  describe("lifetime", function()
    it("keeps its world alive", function()
      local nav = room():navgrid()
      collectgarbage()
      collectgarbage()
      assert.truthy(nav:path({ 100, 50 }, { 300, 50 }))
    end)
  end)

  describe("flow fields", function()
    it("point the way round the wall and give distances", function()
      local nav = room():navgrid()
      local f = assert(nav:flow_field { 300, 50 })
      assert.is_true(f.goal == vec2(300, 50))
      assert.are.equal(40, f.cols)
      local d = f:dir { 100, 50 }
      assert.near(1, d:len(), 1e-9)
      assert.is_true(d.y > 0.5, "heads for the gap below the wall")
      assert.is_true(f:distance { 100, 50 } > 300)
      assert.is_nil(f:distance { 200, 100 }, "inside the wall: unreachable")
      raises(function() f.goal = vec2(1, 1) end, "read-only")
      raises(function() f:dir() end, "bad argument #1 to 'dir'")
    end)

    it("gives nil and a reason for a goal nobody can use", function()
      local nav = room():navgrid()
      local f, why = nav:flow_field { 200, 100 }
      assert.is_nil(f)
      assert.are.equal("goal blocked", why)
      f, why = nav:flow_field { -5, 100 }
      assert.is_nil(f)
      assert.are.equal("outside the world", why)
    end)

    -- 40 agents on one field, standing and by method, with 1 and 2 threads.
    local function crowd(threads, by_method)
      local w = room { threads = threads }
      local nav = w:navgrid()
      local field = nav:flow_field { 300, 50 }
      local agents = {}
      for i = 1, 40 do
        local a = w:spawn { pos = { 40 + (i % 8) * 15, 40 + math.floor(i / 8) * 30 }, max_speed = 80, radius = 3,
                            behaviors = not by_method and { { "follow_flow", field = field } } or nil }
        agents[i] = a
      end
      field = nil -- luacheck: ignore (the standing entries keep it alive)
      collectgarbage()
      local f2 = by_method and nav:flow_field { 300, 50 }
      for _ = 1, 60 * 12 do
        if by_method then
          for _, a in ipairs(agents) do a:follow_flow(f2) end
        end
        w:step()
      end
      local worst = 0
      for _, a in ipairs(agents) do worst = math.max(worst, a.pos:dist { 300, 50 }) end
      return worst, w:checksum()
    end

    it("bring a crowd round the wall to the goal, the same on 1 and 2 threads", function()
      local worst1, sum1 = crowd(1, false)
      local worst2, sum2 = crowd(2, false)
      assert.is_true(worst1 < 20, "farthest agent " .. worst1)
      assert.is_true(worst2 < 20, "farthest agent, 2 threads " .. worst2)
      assert.are.equal(sum1, sum2)
      local worst3 = crowd(1, true)
      assert.is_true(worst3 < 20, "by method: farthest " .. worst3)
    end)

    it("can be swapped in standing lists, the old one collected", function()
      local w = room()
      local nav = w:navgrid()
      local agents = {}
      for i = 1, 5 do
        agents[i] = w:spawn { pos = { 40 + i * 10, 40 },
                              behaviors = { { "follow_flow", field = nav:flow_field { 300, 50 } } } }
      end
      w:step()
      local f2 = nav:flow_field { 100, 250 }
      for _, a in ipairs(agents) do a.behaviors = { { "follow_flow", field = f2 } } end
      collectgarbage()
      collectgarbage()
      for _ = 1, 120 do w:step() end
      assert.is_true(agents[1].pos:dist { 100, 250 } < agents[1].pos:dist { 300, 50 })
    end)

    it("read back in standing lists and are checked there", function()
      local w = room()
      local f = w:navgrid():flow_field { 300, 50 }
      local a = w:spawn { pos = { 50, 50 } }
      a.behaviors = { { "follow_flow", field = f, weight = 2 } }
      assert.are.equal(f, a.behaviors[1].field)
      raises(function() a.behaviors = { { "follow_flow" } } end, "'follow_flow' needs field 'field'")
      raises(function() a.behaviors = { { "follow_flow", field = 5 } } end, "steer.flowfield expected")
      raises(function() a.behaviors = { { "seek", target = { 1, 1 }, field = f } } end, "'seek' takes no field 'field'")
      raises(function() a:follow_flow(5) end, "bad argument #1 to 'follow_flow'", "steer.flowfield expected")
      raises(function() a:follow_flow(f, 0 / 0) end, "bad argument #2 to 'follow_flow'")
    end)
  end)
end)
