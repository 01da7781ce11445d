-- perceive_spec.lua: a:perceive, a:memory, a:forget and world:noise
-- (docs/API.md, "Perception"): sight against real geometry, the view cone,
-- hearing, memories that fade, snapshots, and errors.

local steer = require "steer"
local H = require "spec_helper"
local raises, open_world = H.raises, H.open_world

local SIGHT = { sight = { range = 500 } }

-- The ids of the agents in a percept list, in order.
local function ids(list)
  local out = {}
  for _, p in ipairs(list) do out[#out + 1] = p.agent and p.agent.id or false end
  return out
end

-- A guard at (100, 200) facing east and a wall at x = 200 from y = 100 to 300.
local function walled()
  local w = open_world()
  local guard = w:spawn { pos = { 100, 200 }, heading = { 1, 0 }, radius = 5 }
  w:wall({ 200, 100 }, { 200, 300 })
  return w, guard
end

describe("a:perceive sight", function()
  it("does not see a target behind a wall", function()
    local w, guard = walled()
    local hidden = w:spawn { pos = { 300, 200 }, radius = 5 }
    assert.are.same({}, guard:perceive(SIGHT))
    hidden.pos = { 300, 500 } -- past the wall's end: in the open again
    local seen = guard:perceive(SIGHT)
    assert.are.same({ hidden.id }, ids(seen))
    assert.are.equal("sight", seen[1].sense)
    H.same(seen[1].position, 300, 500)
    assert.near(math.sqrt(200 * 200 + 300 * 300), seen[1].distance, 1e-9)
  end)

  it("sees a target standing against a wall on its own side", function()
    local w, guard = walled()
    local against = w:spawn { pos = { 195, 260 }, radius = 5 } -- its disc touches the wall
    assert.are.same({ against.id }, ids(guard:perceive(SIGHT)))
  end)

  it("sees a target whose centre is hidden but whose side is not", function()
    local w = open_world()
    local guard = w:spawn { pos = { 0, 0 }, radius = 5 }
    w:obstacle({ 100, 0 }, 4) -- hides the centre line only
    local wide = w:spawn { pos = { 200, 0 }, radius = 20 }
    assert.are.same({ wide.id }, ids(guard:perceive(SIGHT)))
    w:obstacle({ 100, 0 }, 30) -- hides all of it
    assert.are.same({}, guard:perceive(SIGHT))
  end)

  it("sees within range and the view cone about its heading, nearest first", function()
    local w = open_world()
    local guard = w:spawn { pos = { 1000, 1000 }, heading = { 1, 0 } }
    local ahead_far = w:spawn { pos = { 1300, 1000 } }
    local ahead = w:spawn { pos = { 1100, 1000 } }
    local behind = w:spawn { pos = { 850, 1000 } }
    local beyond = w:spawn { pos = { 1600, 1000 } }
    local narrow = { sight = { range = 500, fov = math.rad(90) } }
    assert.are.same({ ahead.id, ahead_far.id }, ids(guard:perceive(narrow)))
    assert.are.same({ ahead.id, behind.id, ahead_far.id }, ids(guard:perceive(SIGHT)))
    assert.are.same({ ahead.id, behind.id, ahead_far.id, beyond.id },
      ids(guard:perceive { sight = { range = 700 } }))
    assert.are.same({}, guard:perceive {}) -- no senses, nothing perceived
  end)

  it("sees only the tag asked for", function()
    local w = open_world()
    local guard = w:spawn { pos = { 0, 0 } }
    w:spawn { pos = { 10, 0 }, tag = "guard" }
    local player = w:spawn { pos = { 20, 0 }, tag = "player" }
    assert.are.same({ player.id }, ids(guard:perceive { sight = { range = 100 }, tag = "player" }))
    assert.are.same({}, guard:perceive { sight = { range = 100 }, tag = "nobody" })
  end)
end)

describe("a:perceive hearing and world:noise", function()
  it("hears a noise whose circle its hearing reaches, once", function()
    local w = open_world()
    local ear = w:spawn { pos = { 0, 0 } }
    local src = w:spawn { pos = { 500, 0 } }
    w:noise({ 100, 0 }, 30, src) -- 100 away: heard with hearing 70, not 60
    assert.are.same({}, ear:perceive { hearing = { range = 60 } })
    local far = w:spawn { pos = { 0, 0 } }
    local heard = far:perceive { hearing = { range = 70 } }
    assert.are.equal(1, #heard)
    assert.are.equal("hearing", heard[1].sense)
    assert.are.equal(src, heard[1].agent)
    assert.are.equal(src, heard[1].data)
    H.same(heard[1].position, 100, 0)
    assert.are.same({}, far:perceive { hearing = { range = 70 } }) -- heard already
    w:noise({ 0, 10 }, 1, { from = src, loud = true })
    heard = far:perceive { hearing = { range = 70 } }
    assert.are.equal(src, heard[1].agent)
    assert.is_true(heard[1].data.loud)
    w:noise({ 0, 10 }, 1, "no source")
    heard = far:perceive { hearing = { range = 70 } }
    assert.is_nil(heard[1].agent)
    assert.are.equal("no source", heard[1].data)
  end)

  it("hears noises for 60 ticks only", function()
    local w = open_world()
    local ear = w:spawn {}
    w:noise({ 0, 0 }, 10)
    for _ = 1, 59 do w:step() end
    local late = w:spawn {}
    assert.are.equal(1, #late:perceive { hearing = { range = 1 } })
    w:step()
    assert.are.same({}, ear:perceive { hearing = { range = 1 } })
  end)
end)

describe("a:memory", function()
  it("remembers where a target was last seen after it went behind a wall", function()
    local w, guard = walled()
    local t = w:spawn { pos = { 300, 500 }, radius = 5 }
    assert.are.equal(1, #guard:perceive(SIGHT))
    t.pos = { 300, 200 } -- behind the wall now
    w:step()
    assert.are.same({}, guard:perceive(SIGHT))
    local m = guard:memory(t)
    assert.are.equal(t, m.agent)
    H.same(m.position, 300, 500)
    assert.are.equal(0, m.tick)
    assert.are.equal("sight", m.sense)
    assert.are.same({ m.agent }, { guard:memory()[1].agent })
  end)

  it("fades linearly over the memory time, then forgets", function()
    local w = open_world()
    local guard = w:spawn {}
    local t = w:spawn { pos = { 10, 0 } }
    guard:perceive { sight = { range = 50 }, memory = 2 }
    t.pos = { 1000, 0 }
    assert.are.equal(1, guard:memory(t).confidence)
    for _ = 1, 60 do w:step() end -- 1 s of 2
    local m = guard:memory(t)
    assert.near(0.5, m.confidence, 1e-9)
    assert.near(1.0, m.age, 1e-9)
    for _ = 1, 61 do w:step() end -- past 2 s (60 steps of 1/60 sum to a hair under)
    assert.is_nil(guard:memory(t))
    assert.are.same({}, guard:memory())
  end)

  it("renews a memory each time the target is perceived, strongest first", function()
    local w = open_world()
    local guard = w:spawn {}
    local a = w:spawn { pos = { 10, 0 } }
    local b = w:spawn { pos = { 20, 0 } }
    guard:perceive { sight = { range = 50 } }
    b.pos = { 2000, 0 }
    for _ = 1, 30 do w:step() end
    a.pos = { 10, 0 }
    guard:perceive { sight = { range = 50 } }
    local list = guard:memory()
    assert.are.same({ a, b }, { list[1].agent, list[2].agent })
    assert.are.equal(1, list[1].confidence)
    assert.is_true(list[2].confidence < 1)
  end)

  it("forgets removed agents, and on a:forget", function()
    local w = open_world()
    local guard = w:spawn {}
    local a = w:spawn { pos = { 10, 0 } }
    local b = w:spawn { pos = { 20, 0 } }
    guard:perceive { sight = { range = 50 } }
    assert.are.equal(2, #guard:memory())
    w:remove(a)
    assert.are.same({ b }, { guard:memory()[1].agent })
    guard:forget(b)
    assert.are.same({}, guard:memory())
    b.pos = { 20, 0 }
    guard:perceive { sight = { range = 50 } }
    guard:forget()
    assert.are.same({}, guard:memory())
  end)

  it("keeps 8 memories, replacing the weakest", function()
    local w = open_world()
    local guard = w:spawn {}
    local first = w:spawn { pos = { 10, 0 } }
    guard:perceive { sight = { range = 50 } }
    first.pos = { 3000, 0 }
    w:step()
    for i = 1, 8 do w:spawn { pos = { 10 + i, 5 } } end
    guard:perceive { sight = { range = 50 } }
    local list = guard:memory()
    assert.are.equal(8, #list)
    for _, m in ipairs(list) do assert.are_not.equal(first, m.agent) end
  end)
end)

describe("perception in snapshots", function()
  it("restores memories and unheard noises as they were", function()
    local w, guard = walled()
    local t = w:spawn { pos = { 150, 150 }, radius = 5 }
    guard:perceive(SIGHT)
    w:step()
    w:noise({ 110, 200 }, 5, t)
    local snap = w:snapshot()
    local before = guard:memory(t)
    guard:forget()
    guard:perceive { hearing = { range = 10 } }
    w:restore(snap)
    local m = guard:memory(t)
    assert.are.equal(before.tick, m.tick)
    assert.are.equal(before.time, m.time)
    H.same(m.position, 150, 150, 0)
    local heard = guard:perceive { hearing = { range = 10 } }
    assert.are.equal(1, #heard)
    assert.are.equal(t, heard[1].data)
  end)
end)

describe("perception and determinism", function()
  it("gives the same percepts and checksums on 1 and 2 threads", function()
    local function run(threads)
      local w = steer.world { width = 1000, height = 1000, seed = 3, threads = threads }
      w:wall({ 300, 100 }, { 300, 900 })
      w:obstacle({ 600, 500 }, 60)
      local seen = {}
      local brain = {
        update = function(self, a)
          local p = a:perceive { sight = { range = 250, fov = math.rad(120) }, hearing = { range = 100 } }
          if p[1] and p[1].agent then a:seek(p[1].position) else a:wander() end
          if a.id % 7 == 0 then w:noise(a.pos, 50, a) end
          seen[#seen + 1] = #p
          self.n = #a:memory()
        end,
      }
      for i = 1, 150 do
        w:spawn { pos = { (i * 53) % 1000, (i * 131) % 1000 }, brain = brain, max_speed = 60 }
      end
      for _ = 1, 90 do w:step() end
      return w:checksum(), table.concat(seen, ",")
    end
    local c1, s1 = run(1)
    local c2, s2 = run(2)
    assert.are.equal(c1, c2)
    assert.are.equal(s1, s2)
  end)
end)

describe("perception errors", function()
  it("refuses bad senses with Lua's argument errors", function()
    local w = open_world()
    local a = w:spawn {}
    local gone = w:spawn {}
    w:remove(gone)
    raises(function() a:perceive() end, "bad argument #1 to 'perceive' (table expected, got no value)")
    raises(function() a:perceive { sight = 5 } end,
      "bad argument #1 to 'perceive' (field 'sight': table expected, got number)")
    raises(function() a:perceive { sight = { range = -1 } } end, "field 'sight.range': must be >= 0")
    raises(function() a:perceive { sight = { range = H.nan } } end, "field 'sight.range'")
    raises(function() a:perceive { sight = { range = 1, fov = 0 } } end, "field 'sight.fov': must be > 0")
    raises(function() a:perceive { sight = { rnage = 1 } } end, "unknown option 'rnage'")
    raises(function() a:perceive { seeing = {} } end, "unknown perceive option 'seeing'")
    raises(function() a:perceive { memory = 0 } end, "field 'memory'")
    raises(function() a:perceive { tag = 3 } end, "field 'tag': string expected")
    raises(function() gone:perceive(SIGHT) end, "attempt to use a removed agent")
    raises(function() a:memory(5) end, "bad argument #1 to 'memory'")
    raises(function() w:noise({ 0, 0 }, -1) end, "bad argument #2 to 'noise' (must be >= 0)")
    raises(function() w:noise({ H.nan, 0 }, 1) end, "bad argument #1 to 'noise'")
  end)
end)
