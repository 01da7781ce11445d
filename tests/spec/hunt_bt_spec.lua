-- hunt_bt_spec.lua — the hunt with behaviour-tree hunters (scripts/hunt.lua
-- -- bt / -- mixed, scripts/hunter_bt.lua): they spot, chase, catch, feed,
-- tire and rest like the state machine's hunters; the scene's checksum is
-- the same on 1 and 2 threads; the default hunt is unchanged (FSM hunters).
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
package.path = here .. "?.lua;" .. package.path

local steer = require "steer"
local runner = require "scene_runner"

local function load(mode, threads)
  for _, m in ipairs { "hunt", "hunter", "hunter_bt", "prey" } do package.loaded[m] = nil end
  local scene = require "hunt"
  local cfg = scene.config
  local world = steer.world { width = cfg.width, height = cfg.height, edges = cfg.edges, seed = cfg.seed,
                              threads = threads }
  scene.load(world, mode and { mode } or {})
  return scene, world
end

-- Which brain each hunter runs, after one step: a tree keeps self.bt.
local function brains_of(scene, world)
  runner.run(scene, world, 1)
  local out = {}
  for h in world:agents("hunter") do out[#out + 1] = h.self.bt and "hunter_bt" or "hunter" end
  return out
end

describe("the hunt with behaviour-tree hunters", function()
  it("picks the hunters' brain from the scene argument", function()
    assert.are.same({ "hunter", "hunter", "hunter" }, brains_of(load(nil, 1)))
    assert.are.same({ "hunter_bt", "hunter_bt", "hunter_bt" }, brains_of(load("bt", 1)))
    assert.are.same({ "hunter", "hunter_bt", "hunter" }, brains_of(load("mixed", 1)))
    -- another argument (soak.lua passes its folder) leaves the default
    assert.are.same({ "hunter", "hunter", "hunter" }, brains_of(load("/tmp/x", 1)))
  end)

  it("hunts: its hunters chase, catch, feed, tire and rest, with stamina kept in range", function()
    local scene, world = load("bt", 1)
    local seen, paths = {}, {}
    runner.run(scene, world, 3000, { each = function()
      for h in world:agents("hunter") do
        seen[h.self.state] = true
        if h.self.bt.active then paths[h.self.bt.active] = true end
        assert.is_true(h.self.stamina >= 0 and h.self.stamina <= 100)
      end
    end })
    for _, s in ipairs { "wander", "pursue", "feed", "rest" } do
      assert.is_true(seen[s], "no hunter was ever in " .. s)
    end
    assert.is_true(paths["hunter/hunt/chase"] and paths["hunter/rest/recover"] and paths["hunter/wander"])
    assert.is_true(scene.score(world) >= 5, "only " .. scene.score(world) .. " catches in 3000 ticks")
  end)

  it("draws the running node's name over each hunter", function()
    local scene, world = load("bt", 1)
    runner.run(scene, world, 60)
    local gfx, calls = runner.gfx()
    runner.draw(scene, world, gfx, { hunter = require "hunter_bt", prey = require "prey" })
    local names = 0
    for _, t in ipairs(calls.texts) do
      if t == "wander" or t == "chase" or t == "recover" or t == "brake" or t == "digest" then names = names + 1 end
    end
    assert.are.equal(3, names)
  end)

  for _, mode in ipairs { "bt", "mixed" } do
    it("gives the same checksum on 1 and 2 threads (" .. mode .. ")", function()
      local s1, w1 = load(mode, 1)
      runner.run(s1, w1, 600)
      local s2, w2 = load(mode, 2)
      runner.run(s2, w2, 600)
      assert.are.equal(w1:checksum(), w2:checksum())
    end)
  end
end)
