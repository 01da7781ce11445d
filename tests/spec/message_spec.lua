-- message_spec.lua: world:send / agent:send and brain.message (docs/API.md,
-- "Messages"): who gets what, in which order, when, and that snapshots keep
-- the messages still on their way.

local steer = require "steer"
local H = require "spec_helper"
local raises, open_world = H.raises, H.open_world

-- A brain that logs every message as "id:kind:data@delivered".
local function logging(log)
  return {
    update = function() end,
    message = function(_, a, msg)
      log[#log + 1] = ("%d:%s:%s@%d"):format(a.id, msg.kind, tostring(msg.data), msg.delivered)
    end,
  }
end

describe("world:send", function()
  it("delivers to an agent, a list and a tag, at the next step, before the updates", function()
    local w = open_world()
    local log = {}
    local brain = logging(log)
    local updated_before
    brain.update = function(_, a) if a.id == 1 and updated_before == nil then updated_before = #log end end
    local a = w:spawn { brain = brain, tag = "guard" }
    local b = w:spawn { brain = brain, tag = "guard" }
    local c = w:spawn { brain = brain, tag = "player" }
    assert.are.equal(1, w:send(a, "one", 1))
    assert.are.equal(2, w:send({ c, b }, "list", 2))
    assert.are.equal(2, w:send("guard", "tag", 3))
    assert.are.equal(0, w:send("nobody", "tag", 4))
    assert.are.same({}, log) -- nothing before a step
    w:step()
    -- send order, a list in list order, a tag in spawn order
    assert.are.same({ "1:one:1@0", "3:list:2@0", "2:list:2@0", "1:tag:3@0", "2:tag:3@0" }, log)
    assert.are.equal(5, updated_before, "messages come before the updates")
  end)

  it("orders by delivery tick, then send order, whatever order the delays were given in", function()
    local w = open_world()
    local log = {}
    local a = w:spawn { brain = logging(log) }
    w:send(a, "late", 1, 3 * w.dt)
    w:send(a, "soon", 2, 1 * w.dt)
    w:send(a, "now", 3)
    w:send(a, "soon2", 4, 0.5 * w.dt) -- rounds up to one tick
    w:send(a, "late2", 5, 3 * w.dt)
    for _ = 1, 5 do w:step() end
    assert.are.same({ "1:now:3@0", "1:soon:2@1", "1:soon2:4@1", "1:late:1@3", "1:late2:5@3" }, log)
  end)

  it("holds a delayed message for its delay in world time", function()
    local w = open_world()
    local got
    local a = w:spawn { brain = { message = function(_, _, msg) got = msg end } }
    w:send(a, "wake", nil, 0.5)
    local steps = 0
    while got == nil and steps < 100 do
      w:step()
      steps = steps + 1
    end
    assert.are.equal(31, steps) -- due at tick 30: the step that starts at tick 30
    assert.are.equal(0, got.sent)
    assert.are.equal(30, got.delivered)
    assert.is_true(w.time >= 0.5)
  end)

  it("gives the sender as msg.from with agent:send, none with world:send", function()
    local w = open_world()
    local msgs = {}
    local a = w:spawn { brain = { message = function(_, _, msg) msgs[#msgs + 1] = msg end } }
    local b = w:spawn {}
    b:send(a, "from b", { x = 1 })
    w:send(a, "from world")
    w:step()
    assert.are.equal(b, msgs[1].from)
    assert.are.equal(1, msgs[1].data.x)
    assert.is_nil(msgs[2].from)
  end)

  it("delivers a message sent during a step at the next step, never the same one", function()
    local w = open_world()
    local log = {}
    local first = true
    local b
    local a = w:spawn { brain = { update = function(_, me)
      if first then me:send(b, "ping", 1); first = false end
    end } }
    b = w:spawn { brain = logging(log) }
    w:step()
    assert.are.same({}, log)
    w:step()
    assert.are.same({ "2:ping:1@1" }, log)
    assert.is_truthy(a)
  end)

  it("drops messages to agents removed, paused or without brain.message", function()
    local w = open_world()
    local log = {}
    local a = w:spawn { brain = logging(log) }
    local b = w:spawn { brain = logging(log) }
    local plain = w:spawn {}
    w:send({ a, b, plain }, "k", 1)
    w:remove(b)
    w:step()
    assert.are.same({ "1:k:1@0" }, log)
  end)

  it("keeps messages on their way across snapshot and restore, in the same order", function()
    local w = open_world()
    local log = {}
    local a = w:spawn { brain = logging(log) }
    local b = w:spawn { brain = logging(log) }
    w:send(a, "x", "d", 2 * w.dt)
    w:send({ b, a }, "y", "s", 1 * w.dt)
    w:step()
    local snap = w:snapshot()
    w:send(b, "after the snapshot", 0)
    for _ = 1, 4 do w:step() end
    assert.are.same({ "2:y:s@1", "1:y:s@1", "2:after the snapshot:0@1", "1:x:d@2" }, log)
    for i = #log, 1, -1 do log[i] = nil end
    w:restore(snap)
    for _ = 1, 4 do w:step() end
    -- the restored queue: the same messages at the same ticks; the one sent
    -- after the snapshot is gone with it
    assert.are.same({ "2:y:s@1", "1:y:s@1", "1:x:d@2" }, log)
    -- and a snapshot restores any number of times
    for i = #log, 1, -1 do log[i] = nil end
    w:restore(snap)
    w:step()
    assert.are.same({ "2:y:s@1", "1:y:s@1" }, log)
  end)

  it("keeps the data of a restored message a copy, not the live table", function()
    local w = open_world()
    local got
    local a = w:spawn { brain = { message = function(_, _, msg) got = msg.data end } }
    local data = { n = 1 }
    w:send(a, "k", data, w.dt)
    local snap = w:snapshot()
    data.n = 2
    w:restore(snap)
    w:step(); w:step()
    assert.are.equal(1, got.n)
  end)

  it("refuses bad recipients, kinds and delays with Lua's argument errors", function()
    local w = open_world()
    local a = w:spawn {}
    local gone = w:spawn {}
    w:remove(gone)
    local other = open_world():spawn {}
    raises(function() w:send(5, "k") end, "bad argument #1 to 'send'",
      "agent, list of agents or tag expected, got number")
    raises(function() w:send({ a, 3 }, "k") end, "bad argument #1 to 'send'", "[2]:")
    raises(function() w:send(gone, "k") end, "bad argument #1 to 'send' (agent is removed)")
    raises(function() w:send(other, "k") end, "agent belongs to another world")
    raises(function() w:send(a, 7) end, "bad argument #2 to 'send' (string expected, got number)")
    raises(function() w:send(a, "k", nil, -1) end, "bad argument #4 to 'send' (must be >= 0)")
    raises(function() w:send(a, "k", nil, H.nan) end, "bad argument #4 to 'send'")
    raises(function() w:send(a, "k", nil, H.inf) end, "bad argument #4 to 'send'")
    raises(function() a:send(gone, "k") end, "bad argument #1 to 'send' (agent is removed)")
    -- a list with a bad entry queues nobody
    local log = {}
    local b = w:spawn { brain = logging(log) }
    pcall(function() w:send({ b, 3 }, "k") end)
    w:step()
    assert.are.same({}, log)
  end)

  it("gives the same checksums on 1 and 2 threads with brains that talk", function()
    local function run(threads)
      local w = steer.world { width = 800, height = 800, seed = 7, threads = threads }
      local brain = {
        update = function(self, a)
          if self.target then a:seek(self.target) else a:wander() end
          if a.id % 5 == 0 and w.tick % 10 == 0 then a:send("crowd", "go", a.pos, 0.1) end
        end,
        message = function(self, _, msg) self.target = msg.data end,
      }
      for i = 1, 200 do
        w:spawn { pos = { (i * 37) % 800, (i * 91) % 800 }, brain = brain, tag = "crowd", max_speed = 50 }
      end
      for _ = 1, 120 do w:step() end
      return w:checksum()
    end
    assert.are.equal(run(1), run(2))
  end)
end)
