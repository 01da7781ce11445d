-- think_every_spec.lua: brain scheduling (docs/API.md, "Brain scheduling"):
-- a.think_every = n runs brain.update every n ticks, staggered by id; dt
-- and a.think_age say how stale the last update is; n = 1 is the
-- every-tick brain bit for bit; snapshots keep the phase.

local steer = require "steer"
local H = require "spec_helper"
local raises, open_world = H.raises, H.open_world

-- The first agent in spawn order.
local function first(w)
  local iter, state, ctl = w:agents()
  return iter(state, ctl)
end

-- A crowd whose brains wander and keep a clock from dt.
local function crowd(threads, every, n)
  local w = steer.world { width = 1000, height = 1000, seed = 11, threads = threads }
  local brain = {
    update = function(self, a, dt)
      self.clock = (self.clock or 0) + dt
      a:wander()
      a:separate { radius = 20 }
    end,
  }
  for i = 1, n or 300 do
    local a = w:spawn { pos = { (i * 71) % 1000, (i * 29) % 1000 }, brain = brain, max_speed = 40 }
    if every then a.think_every = every end
  end
  return w
end

describe("a.think_every", function()
  it("defaults to 1, and 1 gives the same checksum as not setting it, bit for bit", function()
    local w0, w1 = crowd(1, nil), crowd(1, 1)
    assert.are.equal(1, first(w0).think_every)
    for _ = 1, 120 do w0:step(); w1:step() end
    assert.are.equal(w0:checksum(), w1:checksum())
  end)

  it("spreads the updates evenly over the ticks", function()
    local w = open_world()
    local per_tick = {}
    local brain = { update = function() per_tick[w.tick] = (per_tick[w.tick] or 0) + 1 end }
    for _ = 1, 1000 do w:spawn { brain = brain }.think_every = 4 end
    for _ = 1, 12 do w:step() end
    for t = 0, 11 do assert.are.equal(250, per_tick[t], "tick " .. t) end
    -- and each agent runs every 4th tick
    local ticks = {}
    local one = w:spawn { brain = { update = function() ticks[#ticks + 1] = w.tick end } }
    one.think_every = 4
    for _ = 1, 12 do w:step() end
    assert.are.equal(3, #ticks)
    assert.are.equal(4, ticks[2] - ticks[1])
    assert.are.equal(4, ticks[3] - ticks[2])
    assert.are.equal(0, (ticks[1] + one.id) % 4)
  end)

  it("tells the brain how stale it is: dt covers the steps since its last update, think_age counts them", function()
    local w = open_world()
    local seen = {}
    local a = w:spawn { brain = { update = function(_, me, dt) seen[#seen + 1] = { dt, me.think_age, w.tick } end } }
    a.think_every = 5
    for _ = 1, 21 do w:step() end
    assert.is_true(#seen >= 4)
    for i = 2, #seen do
      assert.near(5 * w.dt, seen[i][1], 1e-12)
      assert.are.equal(5, seen[i][2])
    end
    -- between steps: the steps since it last ran
    assert.are.equal((w.tick - 1) - seen[#seen][3], a.think_age)
    -- the clock a brain keeps from dt stays with world time
    local total = 0
    for _, s in ipairs(seen) do total = total + s[1] end
    assert.near((seen[#seen][3] + 1) * w.dt, total, 1e-9)
  end)

  it("moves as an every-tick brain when it steers by standing behaviours, reacting within n - 1 ticks", function()
    -- the brain decides at spawn (a standing arrive, run in C every tick)
    -- and its update only watches for the arrival: thinking less changes
    -- no motion, and notices the arrival at most n - 1 ticks late
    local function run(every)
      local w = steer.world { width = 1000, height = 1000, seed = 5, edges = "none" }
      local brain = {
        spawn = function(self, a)
          self.goal = steer.vec2(a.pos.x < 500 and 900 or 100, 500)
          a.behaviors = { { "arrive", target = self.goal } }
        end,
        update = function(self, a)
          if not self.arrived and (a.pos - self.goal):len() < 20 then self.arrived = w.tick end
        end,
      }
      local agents = {}
      for i = 1, 100 do
        local a = w:spawn { pos = { (i * 97) % 1000, (i * 13) % 1000 }, brain = brain, max_speed = 120 }
        a.think_every = every
        agents[i] = a
      end
      for _ = 1, 900 do w:step() end
      local arrived = {}
      for i, a in ipairs(agents) do arrived[i] = a.self.arrived end
      return w:checksum(), arrived
    end
    local c1, t1 = run(1)
    local c4, t4 = run(4)
    assert.are.equal(c1, c4)
    for i = 1, 100 do
      assert.is_number(t1[i], "agent " .. i .. " never arrived")
      assert.is_true(t4[i] >= t1[i] and t4[i] <= t1[i] + 3, "agent " .. i .. ": " .. t1[i] .. " vs " .. t4[i])
    end
  end)

  it("keeps the phase, the steps and their time across snapshot and restore", function()
    local w = open_world()
    local log = {}
    local brain = { update = function(_, a, dt)
      log[#log + 1] = ("%d@%d:%g:%d"):format(a.id, w.tick, dt, a.think_age)
    end }
    for i = 1, 5 do w:spawn { brain = brain }.think_every = i + 1 end
    for _ = 1, 7 do w:step() end
    local snap = w:snapshot()
    for i = #log, 1, -1 do log[i] = nil end
    for _ = 1, 13 do w:step() end
    local want = table.concat(log, " ")
    -- another schedule meanwhile: the restore puts the saved one back
    for a in w:agents() do a.think_every = 1 end
    w:restore(snap)
    for i = #log, 1, -1 do log[i] = nil end
    for _ = 1, 13 do w:step() end
    assert.are.equal(want, table.concat(log, " "))
    local a = first(w)
    assert.are.equal(2, a.think_every)
  end)

  it("gives the same checksum on 1 and 2 threads", function()
    local w1, w2 = crowd(1, 3), crowd(2, 3)
    for _ = 1, 120 do w1:step(); w2:step() end
    assert.are.equal(w1:checksum(), w2:checksum())
  end)

  it("refuses what is not an integer in [1, 1000000]", function()
    local a = open_world():spawn {}
    raises(function() a.think_every = 0 end, "invalid value for field 'think_every' (must be in [1, 1000000])")
    raises(function() a.think_every = 1.5 end, "invalid value for field 'think_every' (integer expected, got number)")
    raises(function() a.think_every = "2" end, "integer expected")
    raises(function() a.think_age = 2 end, "read-only")
    assert.are.equal(1, a.think_every)
  end)
end)
