-- Standing behaviours: agent.behaviors, run in C every step with no Lua call
-- (API.md, "Standing behaviours").
local steer = require "steer"
local vec2 = steer.vec2
local H = require "spec_helper"

local nan = H.nan
local error_of, raises, same, open_world = H.error_of, H.raises, H.same, H.open_world

-- x, y of a vec2, a {x=, y=} or a {x, y}
local function xy(p)
  if type(p) == "table" and p.x == nil then return p[1], p[2] end
  return p.x, p.y
end

-- Runs world:step() and returns the Lua functions called meanwhile (other
-- than the hook itself).
local function lua_calls_during_step(w)
  -- everything as locals: a global lookup in a spec goes through busted's
  -- environment, which is itself a Lua call
  local calls = {}
  local getinfo, sethook, protect, step = debug.getinfo, debug.sethook, pcall, w.step
  local hook = function()
    local info = getinfo(2, "S")
    if info and info.what == "Lua" then calls[#calls + 1] = info.short_src .. ":" .. info.linedefined end
  end
  sethook(hook, "c")
  local ok, err = protect(step, w)
  sethook()
  assert(ok, err)
  return calls
end

describe("standing behaviours", function()
  describe("a.behaviors", function()
    it("reads back nil when none are set", function()
      local a = open_world():spawn {}
      assert.is_nil(a.behaviors)
    end)

    it("reads back an equivalent table", function()
      local w = open_world()
      local a = w:spawn {}
      local other = w:spawn { pos = { 50, 50 } }
      a.behaviors = { { "seek", target = { 100, 200 }, weight = 2 },
                      { "flock", radius = 40, fov = math.rad(270), separation = 1.5 },
                      { "wander", weight = 0.3 },
                      { "pursue", target = other },
                      { "contain" } }
      local b = a.behaviors
      assert.are.equal("table", type(b))
      assert.are.equal(5, #b)
      assert.are.equal("seek", b[1][1])
      assert.are.equal(2, b[1].weight)
      local x, y = xy(b[1].target)
      assert.are.equal(100, x)
      assert.are.equal(200, y)
      assert.are.equal("flock", b[2][1])
      assert.are.equal(40, b[2].radius)
      assert.near(math.rad(270), b[2].fov, 1e-12)
      assert.are.equal(1.5, b[2].separation)
      assert.are.equal("wander", b[3][1])
      assert.are.equal(0.3, b[3].weight)
      assert.are.equal("pursue", b[4][1])
      assert.is_true(rawequal(other, b[4].target))
      assert.are.equal("contain", b[5][1])
      assert.are.equal(1, b[5].weight or 1)
    end)

    it("what is read back can be set again with the same effect", function()
      local function run(copy)
        local w = open_world { seed = 3 }
        local a = w:spawn { pos = { 100, 100 } }
        a.behaviors = { { "arrive", target = { 300, 100 }, slowing_radius = 80 }, { "wander", weight = 0.5 } }
        if copy then a.behaviors = a.behaviors end
        for _ = 1, 60 do w:step() end
        return a.pos
      end
      assert.is_true(run(false) == run(true))
    end)

    it("nil clears them", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 } }
      a.behaviors = { { "seek", target = { 500, 100 } } }
      a.behaviors = nil
      assert.is_nil(a.behaviors)
      w:step()
      same(a.pos, 100, 100)
      same(a.force, 0, 0)
    end)

    it("is a copy: changing the table afterwards changes nothing", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 } }
      local list = { { "seek", target = { 500, 100 } } }
      a.behaviors = list
      list[1].target = { 100, 500 }
      list[2] = { "flee", target = { 0, 0 } }
      w:step()
      assert.is_true(a.vel.x > 0 and math.abs(a.vel.y) < 1e-9, "still seeks (500, 100): " .. tostring(a.vel))
      assert.are.equal(1, #a.behaviors)
    end)

    it("can be given to spawn", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 }, behaviors = { { "seek", target = { 100, 500 } } } }
      assert.are.equal("seek", a.behaviors[1][1])
      w:step()
      assert.is_true(a.vel.y > 0)
      assert.is_nil(a.self and a.self.behaviors, "behaviors is not an unknown field")
    end)
  end)

  describe("the standing pass", function()
    it("moves agents with no Lua call at all", function()
      local w = open_world()
      local agents = {}
      for i = 1, 50 do
        agents[i] = w:spawn { pos = { 10 * i, 100 },
                              behaviors = { { "seek", target = { 2000, 2000 } }, { "wander", weight = 0.2 } } }
      end
      local calls = lua_calls_during_step(w)
      assert.are.same({}, calls)
      for i = 1, 50 do
        assert.is_true(agents[i].speed > 0, "agent " .. i .. " moved")
      end
    end)

    it("computes what the method call computes", function()
      local function run(standing)
        local w = open_world { seed = 5 }
        local leader = w:spawn { pos = { 300, 300 }, vel = { 40, 10 } }
        local a = w:spawn { pos = { 100, 100 } }
        local b = w:spawn { pos = { 160, 80 } }
        local path = steer.path { { 200, 100 }, { 400, 300 }, loop = true }
        w:obstacle({ 250, 250 }, 20)
        if standing then
          a.behaviors = { { "offset_pursue", leader = leader, offset = { -20, 10 } },
                          { "wander", weight = 0.4 } }
          b.behaviors = { { "follow_path", path = path }, { "avoid_obstacles", weight = 3 } }
        end
        for _ = 1, 240 do
          if not standing then
            a:offset_pursue(leader, { -20, 10 })
            a:wander(0.4)
            b:follow_path(path)
            b:avoid_obstacles(3)
          end
          w:step()
        end
        return a.pos, b.pos, w:checksum()
      end
      local a1, b1, c1 = run(false)
      local a2, b2, c2 = run(true)
      same(a2, a1.x, a1.y, 1e-6)
      same(b2, b1.x, b1.y, 1e-6)
      assert.are.equal(c1, c2)
    end)

    it("takes an agent or a point as target", function()
      local w = open_world()
      local t = w:spawn { pos = { 100, 500 } }
      local a = w:spawn { pos = { 100, 100 }, behaviors = { { "seek", target = t } } }
      local b = w:spawn { pos = { 100, 100 }, behaviors = { { "seek", target = vec2(500, 100) } } }
      local c = w:spawn { pos = { 100, 100 }, behaviors = { { "seek", target = { x = 100, y = -300 } } } }
      w:step()
      assert.is_true(a.vel.y > 0)
      assert.is_true(b.vel.x > 0)
      assert.is_true(c.vel.y < 0)
    end)

    it("passes every parameter by name", function()
      local w = open_world()
      local threat = w:spawn { pos = { 300, 100 }, vel = { -10, 0 } }
      local a1 = w:spawn { pos = { 500, 500 } }
      local a2 = w:spawn { pos = { 700, 500 } }
      w:obstacle({ 250, 150 }, 20)
      local f = w:spawn { pos = { 100, 100 }, behaviors = { { "flee", target = { 120, 100 }, panic_radius = 10 } } }
      local e = w:spawn { pos = { 100, 300 }, behaviors = { { "evade", target = threat, threat_radius = 50 } } }
      local i = w:spawn { pos = { 600, 800 }, behaviors = { { "interpose", a = a1, b = a2 } } }
      local h = w:spawn { pos = { 400, 400 }, behaviors = { { "hide", threat = threat } } }
      w:step()
      same(f.force, 0, 0, 0) -- beyond the panic radius
      same(e.force, 0, 0, 0) -- beyond the threat radius
      assert.is_true(i.vel.y < 0, "interposes towards y = 500")
      assert.is_true(h.speed > 0, "hides")
    end)

    it("runs after the brains' calls, so a called behaviour wins under priority", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 }, max_force = 150, combine = "priority",
                          behaviors = { { "seek", target = { 100, 900 } } } }
      local first = a:seek({ 900, 100 })
      w:step()
      same(a.force, first.x, first.y, 1e-9)
    end)

    it("adds to the called behaviours under sum", function()
      local w = open_world()
      local a = w:spawn { pos = { 100, 100 }, behaviors = { { "seek", target = { 100, 900 }, weight = 0.5 } } }
      local twin = open_world():spawn { pos = { 100, 100 } }
      local f = twin:seek({ 100, 900 })
      a:apply({ 10, 0 })
      w:step()
      same(a.force, 10 + 0.5 * f.x, 0.5 * f.y, 1e-9)
    end)

    it("flock with the defaults aligns a random crowd", function()
      local w = steer.world { width = 300, height = 300, edges = "wrap", seed = 8 }
      for _ = 1, 60 do
        w:spawn { pos = { w:random() * 300, w:random() * 300 },
                  vel = vec2.from_angle(w:random() * 2 * math.pi, 60),
                  behaviors = { { "flock" } } }
      end
      local function order()
        local s = vec2(0, 0)
        for a in w:agents() do s = s + a.heading end
        return s:len() / w:count()
      end
      local start = order()
      for _ = 1, 1500 do w:step() end
      local final = order()
      assert.is_true(final > 0.8 and final > start + 0.4,
        ("order parameter rose from %.3f to only %.3f"):format(start, final))
    end)

    it("skips a target that was removed", function()
      local w = open_world()
      local t = w:spawn { pos = { 100, 500 } }
      local a = w:spawn { pos = { 100, 100 }, behaviors = { { "pursue", target = t } } }
      w:remove(t)
      w:step()
      same(a.force, 0, 0, 0)
    end)
  end)

  describe("bad entries", function()
    local w, a
    before_each(function()
      w = open_world()
      a = w:spawn { pos = { 100, 100 } }
    end)

    it("raise", function()
      error_of(function() a.behaviors = 5 end)
      raises(function() a.behaviors = { { "teleport" } } end, "teleport")
      error_of(function() a.behaviors = { { 42 } } end)
      error_of(function() a.behaviors = { {} } end)
      raises(function() a.behaviors = { { "seek" } } end, "target")
      raises(function() a.behaviors = { { "seek", target = "home" } } end, "target")
      raises(function() a.behaviors = { { "seek", target = { nan, 0 } } } end, "target")
      raises(function() a.behaviors = { { "seek", target = { 0, 0 }, weight = nan } } end, "weight")
      raises(function() a.behaviors = { { "flee", target = { 0, 0 }, panic_radius = -1 } } end, "panic_radius")
      raises(function() a.behaviors = { { "arrive", target = { 0, 0 }, slowing_radius = -1 } } end, "slowing_radius")
      raises(function() a.behaviors = { { "pursue", target = { 0, 0 } } } end, "target")
      raises(function() a.behaviors = { { "offset_pursue", leader = a } } end, "offset")
      raises(function() a.behaviors = { { "interpose", a = a } } end, "b")
      raises(function() a.behaviors = { { "hide" } } end, "threat")
      raises(function() a.behaviors = { { "follow_path", path = { { 0, 0 } } } } end, "path")
      raises(function() a.behaviors = { { "flock", radius = -5 } } end, "radius")
      raises(function() w:spawn { behaviors = { { "teleport" } } } end, "teleport")
    end)

    it("raise for a string entry that lacks a needed field", function()
      -- a string entry is shorthand for {name}: {"wander"} works, {"seek"} has no target
      a.behaviors = { "wander" }
      assert.are.equal("wander", a.behaviors[1][1])
      raises(function() a.behaviors = { "seek" } end, "target")
      raises(function() a.behaviors = { "hide" } end, "threat")
    end)

    it("leave the old list in place", function()
      a.behaviors = { { "seek", target = { 500, 100 } } }
      error_of(function() a.behaviors = { { "wander" }, { "teleport" } } end)
      assert.are.equal(1, #a.behaviors)
      assert.are.equal("seek", a.behaviors[1][1])
    end)

    it("of a removed agent raise", function()
      w:remove(a)
      raises(function() a.behaviors = { { "wander" } } end, "attempt to use a removed agent")
    end)
  end)
end)
