-- Crowds and obstacles from Lua (API.md, "crowds and obstacles"): ORCA's
-- fields, defaults and errors, what ORCA promises a script (no overlap, the
-- same bits on any thread count), obstacles that move and go, avoid_agents,
-- contain(rect) and contacts.
local steer = require "steer"
local H = require "spec_helper"

local raises, open_world = H.raises, H.open_world

-- Two agents at app scale walking at each other along y = 300.
local function head_on(w, opts)
  opts = opts or {}
  local a = w:spawn { pos = { 100, 300 }, avoidance = opts.a or "orca",
                      behaviors = { { "arrive", target = { 700, 300 } } } }
  local b = w:spawn { pos = { 700, 300.5 }, avoidance = opts.b or "orca",
                      behaviors = { { "arrive", target = { 100, 300.5 } } } }
  return a, b
end

-- Least distance between a and b over n steps, less their radii.
local function closest_gap(w, a, b, n)
  local gap = math.huge
  for _ = 1, n do
    w:step()
    gap = math.min(gap, a.pos:dist(b.pos) - a.radius - b.radius)
  end
  return gap
end

describe("ORCA fields", function()
  it("default to none, automatic range and horizons, 10 neighbours, priority 1, all layers", function()
    local w = open_world()
    local a = w:spawn { pos = { 0, 0 } }
    assert.equal("none", a.avoidance)
    assert.equal(150, a.avoid_range)          -- max(10 x radius 6, 150 units/s x 1 s)
    assert.equal(1, a.avoid_horizon)          -- range / max_speed
    assert.equal(1, a.avoid_horizon_obstacles)
    assert.equal(10, a.avoid_max_neighbors)
    assert.equal(1, a.avoid_priority)
    assert.equal(1, a.avoid_layer)
    assert.equal(0xFFFFFFFF, a.avoid_mask)
    assert.is_false(a.locked)
  end)

  it("follow the agent while automatic and return to automatic on nil", function()
    local w = open_world()
    local a = w:spawn { pos = { 0, 0 }, radius = 1.5, max_speed = 2 }
    assert.equal(15, a.avoid_range)            -- RVO2's example scale: 10 radii
    assert.equal(7.5, a.avoid_horizon)
    a.avoid_range = 40
    assert.equal(40, a.avoid_range)
    assert.equal(10, a.avoid_horizon)          -- clamped to 10 s
    a.avoid_range = nil
    assert.equal(15, a.avoid_range)
  end)

  it("are spawn fields, not self", function()
    local w = open_world()
    local a = w:spawn { pos = { 0, 0 }, avoidance = "orca", avoid_priority = 3, avoid_layer = 2,
                        avoid_mask = 5, locked = true, avoid_max_neighbors = 4, avoid_horizon = 2 }
    assert.equal("orca", a.avoidance)
    assert.equal(3, a.avoid_priority)
    assert.equal(2, a.avoid_layer)
    assert.equal(5, a.avoid_mask)
    assert.is_true(a.locked)
    assert.equal(4, a.avoid_max_neighbors)
    assert.equal(2, a.avoid_horizon)
    assert.is_nil(rawget(a.self, "avoidance"))
    assert.is_nil(a.self.avoid_priority)
  end)

  it("refuse bad values in Lua's standard form, and a bad spawn spawns nothing", function()
    local w = open_world()
    local a = w:spawn { pos = { 0, 0 } }
    raises(function() a.avoidance = "rvo" end, "invalid value for field 'avoidance'", "invalid option 'rvo'")
    raises(function() a.avoidance = 1 end, "field 'avoidance'", "string expected, got number")
    raises(function() a.avoid_priority = -1 end, "field 'avoid_priority'", "must be >= 0")
    raises(function() a.avoid_horizon = 0 end, "field 'avoid_horizon'", "must be > 0")
    raises(function() a.avoid_range = 0 / 0 end, "field 'avoid_range'")
    raises(function() a.avoid_max_neighbors = 65 end, "must be in [0, 64]")
    raises(function() a.avoid_max_neighbors = 2.5 end, "must be an integer")
    raises(function() a.avoid_layer = 1.5 end, "bit set must be an integer")
    raises(function() a.avoid_mask = -1 end, "bit set must be in [0, 0xFFFFFFFF]")
    raises(function() a.locked = 1 end, "field 'locked'", "boolean expected, got number")
    raises(function() w:spawn { avoid_horizon_obstacles = -2 } end,
      "bad argument #1 to 'spawn' (field 'avoid_horizon_obstacles': must be > 0)")
    assert.equal(1, w:count())
  end)
end)

describe("ORCA", function()
  it("keeps two agents walking at each other apart, and both arrive", function()
    local w = open_world()
    local a, b = head_on(w)
    local gap = closest_gap(w, a, b, 600)
    assert.is_true(gap >= -0.12, "gap " .. gap)   -- 1% of the radii
    assert.is_true(a.pos:dist(steer.vec2(700, 300)) < 1)
    assert.is_true(b.pos:dist(steer.vec2(100, 300.5)) < 1)
  end)

  it("without it they walk through each other", function()
    local w = open_world()
    local a, b = head_on(w, { a = "none", b = "none" })
    assert.is_true(closest_gap(w, a, b, 600) < -10)
  end)

  it("lets masks say who avoids whom", function()
    local w = open_world()
    local a, b = head_on(w)
    a.avoid_layer, a.avoid_mask = 1, 1   -- a avoids only layer 1
    b.avoid_layer, b.avoid_mask = 2, 2   -- b only layer 2: neither sees the other
    assert.is_true(closest_gap(w, a, b, 600) < -10)
  end)

  it("does not move a locked agent, and walks round it", function()
    local w = open_world()
    local rock = w:spawn { pos = { 400, 300 }, radius = 20, avoidance = "orca", locked = true }
    local a = w:spawn { pos = { 100, 300 }, avoidance = "orca",
                        behaviors = { { "arrive", target = { 700, 300 } } } }
    local gap = closest_gap(w, a, rock, 600)
    assert.equal(400, rock.pos.x)
    assert.equal(300, rock.pos.y)
    assert.is_true(gap >= -0.26, "gap " .. gap)
    assert.is_true(a.pos:dist(steer.vec2(700, 300)) < 1)
  end)

  local function crowd(threads)
    local w = steer.world { width = 600, height = 600, seed = 9, threads = threads }
    for i = 1, 600 do
      w:spawn { pos = { w:random() * 600, w:random() * 600 }, avoidance = "orca", radius = 4,
                avoid_priority = i % 3, locked = i % 50 == 0,
                behaviors = { { "arrive", target = { w:random() * 600, w:random() * 600 } } } }
    end
    w:add_obstacle { polygon = { { 280, 280 }, { 320, 280 }, { 300, 330 } } }
    w:add_obstacle { pos = { 100, 500 }, radius = 25 }
    for _ = 1, 120 do w:step() end
    return w:checksum()
  end

  it("gives the same checksum with 1 and 2 threads", function()
    assert.equal(crowd(1), crowd(2))
  end)
end)

describe("obstacles", function()
  it("are circles, polygons and polylines with readable shapes", function()
    local w = open_world()
    local c = w:add_obstacle { pos = { 100, 100 }, radius = 20 }
    local p = w:add_obstacle { polygon = { { 0, 0 }, { 30, 0 }, { 0, 30 } } }
    local l = w:add_obstacle { polyline = { { 0, 0 }, { 10, 0 } } }
    assert.equal("circle", c.kind)
    assert.equal("polygon", p.kind)
    assert.equal("polyline", l.kind)
    assert.equal(20, c.radius)
    H.same(p.pos, 10, 10)
    assert.equal(3, #p.points)
    H.same(p.points[2], 30, 0)
    assert.equal(0, #c.points)
    assert.equal(3, #w:obstacles())
    assert.equal(c, w:obstacles()[1])
    assert.equal("obstacle(1, circle)", tostring(c))
  end)

  it("move when pos is assigned, and go when removed", function()
    local w = open_world()
    local p = w:add_obstacle { polygon = { { 0, 0 }, { 30, 0 }, { 0, 30 } } }
    p.pos = { 110, 110 }
    H.same(p.points[1], 100, 100)
    local id = w:obstacle({ 5, 5 }, 3)
    w:remove_obstacle(p)
    w:remove_obstacle(id)
    assert.is_false(p.alive)
    assert.equal("polygon", p.kind)
    assert.equal(0, #w:obstacles())
    raises(function() return p.pos end, "attempt to use a removed obstacle")
    raises(function() w:remove_obstacle(p) end, "attempt to remove a removed obstacle")
    raises(function() p.radius = 2 end, "field 'radius' of steer.obstacle is read-only")
  end)

  it("refuse bad definitions", function()
    local w = open_world()
    raises(function() w:add_obstacle { pos = { 1, 1 } } end, "give one of 'radius'")
    raises(function() w:add_obstacle { radius = 3 } end, "a circle needs a centre")
    raises(function() w:add_obstacle { polygon = { { 0, 0 }, { 1, 1 } } } end, "needs 3 to 100000 points, got 2")
    raises(function() w:add_obstacle { polyline = { { 0, 0 }, { 0 / 0, 1 } } } end, "must be finite")
    raises(function() w:add_obstacle { pos = { 0, 0 }, radius = 1, colour = 2 } end, "unknown field 'colour'")
    raises(function() w:add_obstacle { pos = { 0, 0 }, radius = -1 } end, "must be >= 0")
    assert.equal(0, #w:obstacles())
  end)

  it("stop a seeker that avoids them, polygons included", function()
    local w = open_world()
    w:add_obstacle { polygon = { { 380, 250 }, { 420, 250 }, { 420, 350 }, { 380, 350 } } }
    local a = w:spawn { pos = { 100, 305 },
                        behaviors = { { "avoid_obstacles" }, { "arrive", target = { 700, 305 } } } }
    for _ = 1, 900 do
      w:step()
      local p = a.pos
      assert.is_false(p.x > 380 and p.x < 420 and p.y > 250 and p.y < 350, "inside the square at " .. tostring(p))
    end
    assert.is_true(a.pos:dist(steer.vec2(700, 305)) < 1)
  end)
end)

describe("avoid_agents", function()
  local function crossing(with)
    local w = open_world()
    local a = w:spawn { pos = { 100, 300 }, vel = { 150, 0 } }
    local b = w:spawn { pos = { 400, 0 }, vel = { 0, 150 } }
    local gap = math.huge
    for _ = 1, 200 do
      if with then a:avoid_agents() end
      a:seek { 700, 300 }
      b.behaviors = with and { { "avoid_agents" }, { "seek", target = { 400, 600 } } }
                         or { { "seek", target = { 400, 600 } } }
      w:step()
      gap = math.min(gap, a.pos:dist(b.pos) - 12)
    end
    return gap
  end

  it("keeps two crossing seekers apart that would collide without it", function()
    assert.is_true(crossing(false) < 0)
    assert.is_true(crossing(true) > 0)
  end)

  it("returns no force with nobody around, and reads back in a standing list", function()
    local w = open_world()
    local a = w:spawn { pos = { 0, 0 }, behaviors = { { "avoid_agents", weight = 2 } } }
    H.same(a:avoid_agents(), 0, 0)
    assert.equal("avoid_agents", a.behaviors[1][1])
    assert.equal(2, a.behaviors[1].weight)
  end)
end)

describe("contain(rect)", function()
  it("keeps wanderers in a pen", function()
    local w = open_world()
    local pen = { 200, 150, 300, 200 }
    local agents = {}
    for i = 1, 10 do
      agents[i] = w:spawn { pos = { 220 + 25 * i, 200 }, vel = steer.vec2.from_angle(i, 150),
                            combine = "priority",
                            behaviors = { { "contain", rect = pen }, { "wander", weight = 0.5 } } }
    end
    for _ = 1, 1200 do
      w:step()
      for _, a in ipairs(agents) do
        local p = a.pos
        assert.is_true(p.x >= 200 and p.x <= 500 and p.y >= 150 and p.y <= 350, "left the pen at " .. tostring(p))
      end
    end
  end)

  it("takes the rect as a method argument and checks it", function()
    local w = open_world()
    local a = w:spawn { pos = { 10, 10 }, vel = { -100, 0 } }
    assert.is_true(a:contain({ 0, 0, 100, 100 }).x > 0)
    assert.is_true(a:contain({ x = 0, y = 0, w = 100, h = 100 }, 2).x > 0)
    raises(function() a:contain({ 0, 0, 0, 10 }) end, "bad argument #1 to 'contain'", "width and height must be > 0")
    raises(function() a:contain({ 0, "y", 1, 1 }) end, "rectangle {x, y, w, h} expected")
    raises(function() a.behaviors = { { "contain", rect = 5 } } end, "field 'rect'")
    local b = w:spawn { behaviors = { { "contain", rect = { 1, 2, 3, 4 } } } }
    assert.same({ 1, 2, 3, 4 }, b.behaviors[1].rect)
  end)
end)

describe("contacts", function()
  local function heap(contacts)
    local w = steer.world { width = 800, height = 600, edges = "bounce", contacts = contacts, seed = 3 }
    local all = {}
    for i = 1, 150 do
      all[i] = w:spawn { pos = { 350 + w:random() * 100, 250 + w:random() * 100 }, radius = 4,
                         behaviors = { { "seek", target = { 400, 300 } } } }
    end
    for _ = 1, 240 do w:step() end
    local worst = math.huge
    for _, a in ipairs(all) do
      for _, b in ipairs(w:neighbors(a, 8)) do worst = math.min(worst, a.pos:dist(b.pos) / 8) end
    end
    return worst
  end

  it("pushes a heap of seekers apart", function()
    assert.is_true(heap(false) < 0.2)
    assert.is_true(heap(true) >= 0.9)
  end)

  it("is a world field", function()
    local w = open_world()
    assert.is_false(w.contacts)
    w.contacts = true
    assert.is_true(w.contacts)
    raises(function() w.contacts = 1 end, "field 'contacts'", "boolean expected")
    raises(function() steer.world { contacts = "yes" } end, "field 'contacts'")
  end)
end)
