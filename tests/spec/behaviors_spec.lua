-- Steering behaviour methods: what each returns and accumulates, and the
-- properties a user relies on (API.md, "agent (vehicle)").
local steer = require "steer"
local vec2 = steer.vec2
local H = require "spec_helper"

local nan, inf = H.nan, H.inf
local error_of, raises, same, open_world = H.error_of, H.raises, H.same, H.open_world

local function is_vec2(v)
  return type(v) == "userdata" and debug.getmetatable(v).__name == "steer.vec2"
end

local function finite(x) return x == x and x ~= inf and x ~= -inf end

-- Runs up to `max` steps, calling drive() before each; returns the number of
-- the first step after which done() holds, or nil.
local function run_until(w, max, drive, done)
  for i = 1, max do
    drive()
    w:step()
    if done() then return i end
  end
  return nil
end

-- Distance from point p to segment ab.
local function seg_dist(p, a, b)
  local ab = b - a
  local t = (p - a):dot(ab) / ab:len2()
  t = math.max(0, math.min(1, t))
  return p:dist(a + ab * t)
end

-- Whether segments p1p2 and q1q2 cross.
local function crosses(p1, p2, q1, q2)
  local d1 = (p2 - p1):cross(q1 - p1)
  local d2 = (p2 - p1):cross(q2 - p1)
  local d3 = (q2 - q1):cross(p1 - q1)
  local d4 = (q2 - q1):cross(p2 - q1)
  return d1 * d2 < 0 and d3 * d4 < 0
end

describe("behaviour methods", function()
  describe("return the unweighted force and accumulate weight times it", function()
    -- Each case builds a scene around agent `a` at (100, 300) and returns a
    -- function that calls the behaviour with weight 0.5.
    local cases = {
      seek = function(_, a) return function() return a:seek({ 400, 300 }, 0.5) end end,
      flee = function(_, a) return function() return a:flee({ 150, 300 }, 100, 0.5) end end,
      arrive = function(_, a) return function() return a:arrive({ 400, 300 }, 100, 0.5) end end,
      pursue = function(w, a)
        local b = w:spawn { pos = { 400, 300 }, vel = { 0, 50 } }
        return function() return a:pursue(b, 0.5) end
      end,
      evade = function(w, a)
        local b = w:spawn { pos = { 150, 300 }, vel = { -20, 0 } }
        return function() return a:evade(b, 500, 0.5) end
      end,
      intercept = function(w, a)
        local b = w:spawn { pos = { 400, 300 }, vel = { 0, 50 } }
        return function() return a:intercept(b, 0.5) end
      end,
      wander = function(_, a) return function() return a:wander(0.5) end end,
      separate = function(w, a)
        local b = w:spawn { pos = { 110, 300 } }
        return function() return a:separate({ b }, 0.5) end
      end,
      align = function(w, a)
        local b = w:spawn { pos = { 110, 300 }, vel = { 0, 50 } }
        return function() return a:align({ b }, 0.5) end
      end,
      cohere = function(w, a)
        local b = w:spawn { pos = { 140, 300 } }
        return function() return a:cohere({ b }, 0.5) end
      end,
      avoid_obstacles = function(w, a)
        a.vel = { 100, 0 }
        w:obstacle({ 150, 305 }, 20)
        return function() return a:avoid_obstacles(0.5) end
      end,
      avoid_walls = function(w, a)
        a.vel = { 100, 0 }
        w:wall({ 115, 250 }, { 115, 350 })
        return function() return a:avoid_walls(0.5) end
      end,
      contain = function(_, a)
        a.pos = { 3995, 300 }
        a.vel = { 150, 0 }
        return function() return a:contain(0.5) end
      end,
      follow_path = function(_, a)
        local path = steer.path { { 300, 300 }, { 300, 500 } }
        return function() return a:follow_path(path, 0.5) end
      end,
      offset_pursue = function(w, a)
        local leader = w:spawn { pos = { 300, 300 }, vel = { 50, 0 } }
        return function() return a:offset_pursue(leader, { -20, 0 }, 0.5) end
      end,
      interpose = function(w, a)
        local b = w:spawn { pos = { 300, 100 } }
        local c = w:spawn { pos = { 300, 500 } }
        return function() return a:interpose(b, c, 0.5) end
      end,
      hide = function(w, a)
        local threat = w:spawn { pos = { 100, 100 } }
        w:obstacle({ 200, 300 }, 30)
        return function() return a:hide(threat, 0.5) end
      end,
    }
    local names = {}
    for name in pairs(cases) do names[#names + 1] = name end
    table.sort(names)

    for _, name in ipairs(names) do
      it(name, function()
        local w = open_world { edges = "bounce" }
        local a = w:spawn { pos = { 100, 300 } }
        local call = cases[name](w, a)
        local f = call()
        assert.is_true(is_vec2(f), name .. " returns a vec2")
        assert.is_true(f:len() > 1e-6, name .. " gives a force in this scene")
        -- The avoidances may return up to 3 x max_force (README: forces), the rest max_force.
        local limit = (name:match("^avoid_") and 3 or 1) * a.max_force
        assert.is_true(f:len() <= limit + 1e-9, name .. " is at most its limit")
        w:step()
        local applied = (0.5 * f):truncated(a.max_force)
        same(a.force, applied.x, applied.y, 1e-9)
      end)
    end

    it("flock", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 }, vel = { 10, 0 } }
      w:spawn { pos = { 110, 305 }, vel = { 0, 40 } }
      w:spawn { pos = { 130, 290 }, vel = { 0, 40 } }
      local f = a:flock { radius = 50 }
      assert.is_true(is_vec2(f))
      assert.is_true(f:len() > 1e-6)
      w:step()
      same(a.force, f.x, f.y, 1e-9)
    end)

    it("default weight is 1", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 } }
      local f = a:seek({ 400, 300 })
      w:step()
      same(a.force, f.x, f.y, 1e-9)
    end)
  end)

  describe("seek", function()
    it("steers towards full speed at the target: along desired velocity minus vel", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 }, vel = { 0, 30 } }
      local f = a:seek({ 400, 300 })
      local want = vec2(150, 0) - a.vel
      assert.near(0, f:normalized():cross(want:normalized()), 1e-9)
      assert.is_true(f:dot(want) > 0)
    end)

    it("takes an agent as the target", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 }, vel = { 20, 0 } }
      local b = w:spawn { pos = { 100, 500 } }
      local f, g = a:seek(b), a:seek(b.pos)
      same(f, g.x, g.y)
    end)

    it("overshoots a target it reaches at speed", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 } }
      local max_x = -inf
      for _ = 1, 600 do
        a:seek({ 400, 300 })
        w:step()
        max_x = math.max(max_x, a.pos.x)
      end
      assert.is_true(max_x > 405, "seek overshoots: max x " .. max_x)
    end)
  end)

  describe("in a wrap world", function()
    it("steer the shortest way across the edges", function()
      local w = steer.world { width = 800, height = 600, edges = "wrap" }
      local a = w:spawn { pos = { 790, 300 } }
      local b = w:spawn { pos = { 10, 300 }, vel = { 0, 10 } }
      assert.is_true(a:seek({ 10, 300 }).x > 0, "seek goes right, across x = 800")
      assert.is_true(a:pursue(b).x > 0, "pursue goes right")
      assert.is_true(a:flee({ 10, 300 }).x < 0, "flee goes left, away across the edge")
      assert.is_true(a:cohere({ b }).x > 0, "cohere goes right")
      assert.is_true(a:separate({ b }).x < 0, "separate goes left")
    end)
  end)

  describe("flee", function()
    it("steers straight away inside the panic radius", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 } }
      local f = a:flee({ 150, 300 }, 100)
      assert.is_true(f.x < 0)
      assert.near(0, f.y, 1e-9)
    end)

    it("gives zero beyond the panic radius", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 }, vel = { 20, 0 } }
      same(a:flee({ 250, 300 }, 100), 0, 0, 0)
      w:step()
      same(a.force, 0, 0, 0)
    end)

    it("has no panic radius by default", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 } }
      local f = a:flee({ 2100, 300 })
      assert.is_true(f.x < 0)
      assert.near(0, f.y, 1e-9)
    end)
  end)

  describe("arrive", function()
    it("is seek far from the target", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 }, vel = { 20, 10 } }
      local f = a:arrive({ 400, 300 })
      local g = a:seek({ 400, 300 })
      same(f, g.x, g.y, 1e-9)
    end)

    it("has a slowing radius of 100 by default", function()
      -- moving at nearly the speed the linear ramp asks for, so that forces
      -- are small and differences in the ramp show
      local w = open_world()
      for _, d in ipairs { 30, 60, 90 } do
        local a = w:spawn { pos = { 100, 300 + d * 10 }, vel = { 150 * d / 100 - 1, 0 } }
        local t = { 100 + d, 300 + d * 10 }
        local f, g, h = a:arrive(t), a:arrive(t, 100), a:arrive(t, 130)
        same(f, g.x, g.y, 1e-12)
        assert.is_true(f.x > 0, "speeds up towards the ramp at distance " .. d)
        assert.is_true(h.x < 0, "a wider radius asks for less speed at distance " .. d)
      end
    end)

    it("slows down inside the slowing radius", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 } }
      local speed_at_50
      for _ = 1, 900 do
        a:arrive({ 400, 300 })
        w:step()
        if not speed_at_50 and a.pos.x >= 350 then speed_at_50 = a.speed end
      end
      assert.is_not_nil(speed_at_50, "reached the slowing radius")
      assert.is_true(speed_at_50 < 120, "still at " .. speed_at_50 .. " units/s 50 units from the target")
    end)

    it("stops at the target with no overshoot", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 } }
      local max_x = -inf
      for _ = 1, 900 do
        a:arrive({ 400, 300 })
        w:step()
        max_x = math.max(max_x, a.pos.x)
      end
      assert.is_true(max_x <= 400 + 1e-6, "arrive overshot to x = " .. max_x)
      assert.is_true(a.pos:dist(vec2(400, 300)) < 1, "ends at the target: " .. tostring(a.pos))
      assert.is_true(a.speed < 1, "ends at rest: speed " .. a.speed)
    end)

    it("stops with no overshoot even when braking is weak", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 }, max_speed = 300, max_force = 100 }
      local max_x = -inf
      for _ = 1, 1800 do
        a:arrive({ 400, 300 }, 20)
        w:step()
        max_x = math.max(max_x, a.pos.x)
      end
      assert.is_true(max_x <= 400 + 1e-6, "arrive overshot to x = " .. max_x)
      assert.is_true(a.pos:dist(vec2(400, 300)) < 1, "ends at the target: " .. tostring(a.pos))
    end)
  end)

  describe("pursue and intercept", function()
    local function catch_time(method)
      local w = open_world()
      local a = w:spawn { pos = { 100, 600 } }
      local b = w:spawn { pos = { 600, 300 }, vel = { 0, 100 }, max_speed = 100 }
      return run_until(w, 1800, function()
        if method == "seek" then a:seek(b.pos) else a[method](a, b) end
      end, function() return a.pos:dist(b.pos) < a.radius + b.radius end)
    end

    it("pursue catches a moving target sooner than seek", function()
      local seek_t, pursue_t = catch_time("seek"), catch_time("pursue")
      assert.is_not_nil(seek_t, "seek catches it in the end")
      assert.is_not_nil(pursue_t, "pursue catches it")
      assert.is_true(pursue_t < seek_t, ("pursue %s steps, seek %s"):format(pursue_t, seek_t))
    end)

    it("intercept catches a moving target sooner than seek", function()
      local seek_t, intercept_t = catch_time("seek"), catch_time("intercept")
      assert.is_not_nil(intercept_t, "intercept catches it")
      assert.is_true(intercept_t < seek_t, ("intercept %s steps, seek %s"):format(intercept_t, seek_t))
    end)
  end)

  describe("evade", function()
    local function min_distance(evading)
      local w = open_world()
      local hunter = w:spawn { pos = { 500, 500 }, max_speed = 100 }
      local prey = w:spawn { pos = { 650, 500 }, max_speed = 150 }
      local min_d = inf
      for _ = 1, 600 do
        hunter:pursue(prey)
        if evading then prey:evade(hunter) end
        w:step()
        min_d = math.min(min_d, hunter.pos:dist(prey.pos))
      end
      return min_d
    end

    it("keeps its distance from a slower pursuer", function()
      assert.is_true(min_distance(false) < 12, "the pursuer catches a prey that does not evade")
      local d = min_distance(true)
      assert.is_true(d > 100, "evading prey kept " .. d .. " units away")
    end)

    it("gives zero beyond the threat radius", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 } }
      local b = w:spawn { pos = { 400, 300 }, vel = { -50, 0 } }
      same(a:evade(b, 100), 0, 0, 0)
      assert.is_true(a:evade(b, 1000).x < 0, "flees inside the threat radius")
    end)
  end)

  describe("wander", function()
    it("moves, turns, and never exceeds max_speed", function()
      local w = open_world { seed = 9 }
      local a = w:spawn { pos = { 2000, 2000 }, max_speed = 80 }
      local start = a.pos
      local headings = {}
      for i = 1, 600 do
        a:wander()
        w:step()
        assert.is_true(a.speed <= 80 + 1e-9, "speed " .. a.speed)
        headings[i] = a.heading
      end
      assert.is_true(a.pos:dist(start) > 20, "wander moves the agent")
      local max_turn = 0
      for i = 2, #headings do
        max_turn = math.max(max_turn, math.acos(math.max(-1, math.min(1, headings[1]:dot(headings[i])))))
      end
      assert.is_true(max_turn > 0.5, "wander turns the agent")
    end)

    it("differs between seeds and repeats with one", function()
      local function path_end(seed)
        local w = open_world { seed = seed }
        local a = w:spawn { pos = { 2000, 2000 } }
        for _ = 1, 120 do a:wander() w:step() end
        return a.pos
      end
      assert.is_true(path_end(1) == path_end(1))
      assert.is_false(path_end(1) == path_end(2))
    end)
  end)

  describe("separate, align, cohere", function()
    it("separate pushes away from close neighbours", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 } }
      local b = w:spawn { pos = { 110, 300 } }
      assert.is_true(a:separate({ b }).x < 0)
    end)

    it("align steers towards the neighbours' heading", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 }, vel = { 50, 0 } }
      local b = w:spawn { pos = { 110, 300 }, vel = { 0, 50 } }
      local f = a:align({ b })
      assert.is_true(f.y > 0 and f.x < 0, "turns from +x towards +y: " .. tostring(f))
    end)

    it("cohere steers towards the neighbours' centre", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 } }
      local b = w:spawn { pos = { 140, 280 } }
      local c = w:spawn { pos = { 140, 320 } }
      local f = a:cohere({ b, c })
      assert.is_true(f.x > 0, "towards the centre")
      assert.near(0, f.y, 1e-9)
    end)

    it("ignore the agent itself and an empty list", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 }, vel = { 10, 0 } }
      same(a:separate({ a }), 0, 0, 0)
      same(a:cohere({}), 0, 0, 0)
      same(a:align({}), 0, 0, 0)
    end)

    it("accept the result of world:neighbors", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 } }
      w:spawn { pos = { 110, 300 } }
      local f = a:separate(w:neighbors(a, 50))
      assert.is_true(f.x < 0)
    end)
  end)

  describe("flock", function()
    local function order(w)
      local sx, sy, n = 0, 0, 0
      for a in w:agents() do
        sx, sy, n = sx + a.heading.x, sy + a.heading.y, n + 1
      end
      return math.sqrt(sx * sx + sy * sy) / n
    end

    it("turns a random crowd into an aligned flock at the defaults", function()
      local w = steer.world { width = 300, height = 300, edges = "wrap", seed = 4 }
      for _ = 1, 60 do
        local ang = w:random() * 2 * math.pi
        w:spawn { pos = { w:random() * 300, w:random() * 300 }, vel = vec2.from_angle(ang, 60) }
      end
      local start = order(w)
      assert.is_true(start < 0.4, "the crowd starts disordered: " .. start)
      for _ = 1, 1500 do
        for a in w:agents() do a:flock {} end
        w:step()
      end
      local final = order(w)
      assert.is_true(final > 0.8 and final > start + 0.4,
        ("order parameter rose from %.3f to only %.3f"):format(start, final))
    end)

    it("only flocks with its tag when given one", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 }, tag = "bird" }
      w:spawn { pos = { 110, 300 }, tag = "fish" }
      same(a:flock { radius = 50, tag = "bird" }, 0, 0, 0)
      assert.is_true(a:flock { radius = 50 }:len() > 0)
    end)
  end)

  describe("avoidance", function()
    it("avoid_obstacles keeps an agent out of an obstacle in its way", function()
      local w = open_world()
      local center = vec2(400, 300)
      w:obstacle(center, 50)
      local a = w:spawn { pos = { 100, 302 }, combine = "priority" }
      local min_d = inf
      for _ = 1, 600 do
        a:avoid_obstacles()
        a:seek({ 700, 300 })
        w:step()
        min_d = math.min(min_d, a.pos:dist(center))
      end
      assert.is_true(min_d >= 50, "entered the obstacle: closest " .. min_d)
      assert.is_true(a.pos.x > 600, "got past it: " .. tostring(a.pos))
    end)

    it("avoid_obstacles keeps a wandering crowd out", function()
      local w = steer.world { width = 600, height = 600, edges = "wrap", seed = 2 }
      local obstacles = { { vec2(150, 150), 40 }, { vec2(450, 200), 60 }, { vec2(300, 450), 50 } }
      for _, o in ipairs(obstacles) do w:obstacle(o[1], o[2]) end
      for i = 1, 30 do
        w:spawn { pos = { 19 * i, i % 2 == 0 and 10 or 590 }, combine = "priority", max_speed = 100 }
      end
      for _ = 1, 900 do
        for a in w:agents() do
          a:avoid_obstacles()
          a:wander()
        end
        w:step()
        for a in w:agents() do
          for _, o in ipairs(obstacles) do
            assert.is_true(a.pos:dist(o[1]) >= o[2], "agent " .. a.id .. " inside an obstacle")
          end
        end
      end
    end)

    it("avoid_walls never lets an agent cross a wall", function()
      local w = open_world()
      local p, q = vec2(400, 200), vec2(400, 400)
      w:wall(p, q)
      local a = w:spawn { pos = { 100, 310 }, combine = "priority" }
      local min_d = inf
      for _ = 1, 900 do
        a:avoid_walls()
        a:seek({ 700, 300 })
        local before = a.pos
        w:step()
        assert.is_false(crosses(before, a.pos, p, q), "crossed the wall at " .. tostring(a.pos))
        min_d = math.min(min_d, seg_dist(a.pos, p, q))
      end
      assert.is_true(min_d < 100, "the agent came near the wall")
    end)

    it("contain keeps an agent inside the world", function()
      local w = steer.world { width = 800, height = 600, edges = "none" }
      local a = w:spawn { pos = { 400, 300 }, vel = { 150, 20 } }
      for _ = 1, 600 do
        a:contain()
        w:step()
        assert.is_true(a.pos.x >= 0 and a.pos.x <= 800 and a.pos.y >= 0 and a.pos.y <= 600,
          "left the world: " .. tostring(a.pos))
      end
    end)
  end)

  describe("follow_path", function()
    local pts = { { 100, 100 }, { 300, 100 }, { 300, 300 }, { 100, 300 } }

    local function visits(path, steps)
      local w = open_world()
      local a = w:spawn { pos = { 50, 50 } }
      local order, inside = {}, {}
      for _ = 1, steps do
        a:follow_path(path)
        w:step()
        for i, p in ipairs(pts) do
          local now = a.pos:dist(vec2(p[1], p[2])) <= 20
          if now and not inside[i] then order[#order + 1] = i end
          inside[i] = now
        end
      end
      return order, a
    end

    it("visits the waypoints of an open path in order and arrives at the end", function()
      local order, a = visits(steer.path(pts), 1200)
      assert.are.same({ 1, 2, 3, 4 }, order)
      assert.is_true(a.pos:dist(vec2(100, 300)) < 2, "stops at the last point: " .. tostring(a.pos))
      assert.is_true(a.speed < 1, "at rest: " .. a.speed)
    end)

    it("goes round a loop again and again", function()
      local loop = { pts[1], pts[2], pts[3], pts[4], loop = true }
      local order = visits(steer.path(loop), 1800)
      assert.is_true(#order >= 6, "kept going: " .. #order .. " visits")
      for i = 2, #order do
        assert.are.equal(order[i - 1] % 4 + 1, order[i], "in order: " .. table.concat(order, ","))
      end
    end)
  end)

  describe("offset_pursue", function()
    it("ends at the offset in the leader's frame, matching its velocity", function()
      local w = open_world()
      local leader = w:spawn { pos = { 200, 1000 }, vel = { 0, 50 } } -- heading +y, side -x
      local f = w:spawn { pos = { 400, 900 } }
      for _ = 1, 900 do
        f:offset_pursue(leader, { -30, 20 })
        w:step()
      end
      -- x along heading (0, 1), y along side (-1, 0)
      local want = leader.pos + vec2(0, 1) * -30 + vec2(-1, 0) * 20
      assert.is_true(f.pos:dist(want) < 3, ("at %s, want %s"):format(tostring(f.pos), tostring(want)))
      assert.is_true(f.vel:dist(leader.vel) < 3, "matches velocity: " .. tostring(f.vel))
    end)
  end)

  describe("interpose", function()
    it("ends between two agents", function()
      local w = open_world()
      local a1 = w:spawn { pos = { 100, 100 } }
      local a2 = w:spawn { pos = { 500, 300 } }
      local a = w:spawn { pos = { 300, 600 } }
      for _ = 1, 900 do
        a:interpose(a1, a2)
        w:step()
      end
      assert.is_true(a.pos:dist(vec2(300, 200)) < 5, "at the midpoint: " .. tostring(a.pos))
      assert.is_true(seg_dist(a.pos, a1.pos, a2.pos) < 3)
    end)
  end)

  describe("hide", function()
    it("puts an obstacle between the agent and the threat", function()
      local w = open_world()
      local center = vec2(400, 300)
      w:obstacle(center, 30)
      local threat = w:spawn { pos = { 200, 300 } }
      local a = w:spawn { pos = { 450, 100 } }
      for _ = 1, 900 do
        a:hide(threat)
        w:step()
      end
      assert.is_true(seg_dist(center, threat.pos, a.pos) < 30, "hidden: " .. tostring(a.pos))
      assert.is_true(a.pos.x > center.x, "on the far side")
      assert.is_true(a.pos:dist(center) >= 30, "not inside the obstacle")
    end)
  end)

  describe("priority combine", function()
    it("lets the first force win", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 }, max_force = 150, combine = "priority" }
      local first = a:seek({ 400, 300 })
      a:seek({ 100, 600 })
      w:step()
      same(a.force, first.x, first.y, 1e-9)
    end)
  end)

  describe("degenerate inputs", function()
    it("never put a non-finite number into the world", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 300 } }
      local b = w:spawn { pos = { 100, 300 } } -- same place, both at rest
      local c = w:spawn { pos = { 100, 300 } }
      w:obstacle({ 100, 300 }, 10)
      local path = steer.path { { 100, 300 } }
      for _ = 1, 3 do
        a:seek(a.pos)
        a:flee(a.pos)
        a:arrive(a.pos)
        a:pursue(b)
        a:evade(b)
        a:intercept(b)
        a:separate({ b, c })
        a:align({ b, c })
        a:cohere({ b, c })
        a:flock {}
        a:offset_pursue(b, { 0, 0 })
        a:interpose(b, c)
        a:hide(b)
        a:avoid_obstacles()
        a:follow_path(path)
        b:wander()
        w:step()
        for x in w:agents() do
          for _, v in ipairs { x.pos, x.vel, x.heading, x.force } do
            assert.is_true(finite(v.x) and finite(v.y), "agent " .. x.id .. ": " .. tostring(v))
          end
          assert.near(1, x.heading:len(), 1e-9)
        end
      end
    end)
  end)

  describe("bad arguments", function()
    local w, a, b
    before_each(function()
      w = open_world()
      a = w:spawn { pos = { 100, 300 } }
      b = w:spawn { pos = { 200, 300 } }
    end)

    it("name the method and the argument", function()
      raises(function() a:seek(nil) end, "bad argument #1 to 'seek'", "got nil")
      raises(function() a:seek({ nan, 0 }) end, "bad argument #1 to 'seek'")
      raises(function() a:seek({ 0, 0 }, nan) end, "bad argument #2 to 'seek'")
      raises(function() a:seek({ 0, 0 }, inf) end, "bad argument #2 to 'seek'")
      raises(function() a:flee("x") end, "bad argument #1 to 'flee'")
      raises(function() a:flee({ 0, 0 }, -1) end, "bad argument #2 to 'flee'")
      raises(function() a:arrive({ 0, 0 }, nan) end, "bad argument #2 to 'arrive'")
      raises(function() a:arrive({ 0, 0 }, -5) end, "bad argument #2 to 'arrive'")
      raises(function() a:pursue(nil) end, "bad argument #1 to 'pursue'")
      raises(function() a:pursue({ 0, 0 }) end, "bad argument #1 to 'pursue'")
      raises(function() a:evade(b, -1) end, "bad argument #2 to 'evade'")
      raises(function() a:intercept(5) end, "bad argument #1 to 'intercept'")
      raises(function() a:wander(nan) end, "bad argument #1 to 'wander'")
      raises(function() a:separate(nil) end, "bad argument #1 to 'separate'")
      raises(function() a:align({ 1, 2 }) end, "bad argument #1 to 'align'")
      raises(function() a:cohere("all") end, "bad argument #1 to 'cohere'")
      raises(function() a:flock(5) end, "bad argument #1 to 'flock'")
      raises(function() a:flock { radius = -1 } end, "bad argument #1 to 'flock'")
      raises(function() a:flock { fov = nan } end, "bad argument #1 to 'flock'")
      raises(function() a:avoid_obstacles(inf) end, "bad argument #1 to 'avoid_obstacles'")
      raises(function() a:avoid_walls("x") end, "bad argument #1 to 'avoid_walls'")
      raises(function() a:contain(nan) end, "bad argument #1 to 'contain'")
      raises(function() a:follow_path({ { 0, 0 } }) end, "bad argument #1 to 'follow_path'")
      raises(function() a:offset_pursue(b, nil) end, "bad argument #2 to 'offset_pursue'")
      raises(function() a:offset_pursue(nil, { 0, 0 }) end, "bad argument #1 to 'offset_pursue'")
      raises(function() a:interpose(b, nil) end, "bad argument #2 to 'interpose'")
      raises(function() a:hide(nil) end, "bad argument #1 to 'hide'")
      raises(function() a:apply(nil) end, "bad argument #1 to 'apply'")
    end)

    it("leave the accumulator untouched", function()
      error_of(function() a:seek({ 0, 0 }, nan) end)
      error_of(function() a:apply({ inf, 0 }) end)
      w:step()
      same(a.force, 0, 0, 0)
    end)

    it("reject an agent of another world as a target", function()
      local other = open_world():spawn { pos = { 0, 0 } }
      error_of(function() a:pursue(other) end)
    end)
  end)
end)
