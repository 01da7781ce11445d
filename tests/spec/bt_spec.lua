-- bt_spec.lua — steer.bt (scripts/steer/bt.lua): every node type and
-- decorator, running state kept in self under node paths, errors in Lua's
-- standard form, determinism in a world, and a hot reload that keeps a
-- running node running with its new code while a renamed one resets.
local Spec = require "spec_helper"
local bt = require "steer.bt"

-- An action that logs its calls and returns the scripted results in turn
-- (the last one repeated).
local function scripted(log, tag, ...)
  local results = { ... }
  local n = 0
  return bt.action(function(_, _, _, mem)
    n = n + 1
    log[#log + 1] = tag
    mem.calls = (mem.calls or 0) + 1
    return results[math.min(n, #results)]
  end, tag)
end

local function ticks(tree, self, n, dt)
  local out = {}
  for i = 1, n do out[i] = tree:tick(self, nil, dt or 0.1) end
  return out
end

describe("steer.bt", function()
  describe("leaves", function()
    it("an action's result is the tick's, booleans mean success and failure", function()
      for got, want in pairs { success = "success", failure = "failure", running = "running",
                                [true] = "success", [false] = "failure" } do
        assert.are.equal(want, bt.action(function() return got end):tick({}, nil, 0.1))
      end
    end)

    it("a running action keeps its mem and sees its running time; a new run gets a fresh mem", function()
      local mems = {}
      local tree = bt.action(function(_, _, _, mem)
        mems[#mems + 1] = mem
        mem.count = (mem.count or 0) + 1
        return mem.count < 3 and "running" or "success"
      end)
      local self = {}
      assert.are.same({ "running", "running", "success", "running" }, ticks(tree, self, 4, 0.25))
      assert.is_true(rawequal(mems[1], mems[3]))
      assert.are.equal(1, mems[4].count) -- emptied for the new run
      assert.are.equal(0.25, mems[4].time)
    end)

    it("an action that returns nothing raises, naming the node", function()
      local tree = bt.sequence { name = "root", bt.action(function() end, "forgot") }
      Spec.raises(function() tree:tick({}, nil, 0.1) end, "action 'root/forgot' returned nil")
    end)

    it("condition: true succeeds, false fails, never running", function()
      local self = { ok = true }
      local c = bt.condition(function(s) return s.ok end)
      assert.are.equal("success", c:tick(self, nil, 0.1))
      self.ok = false
      assert.are.equal("failure", c:tick(self, nil, 0.1))
    end)

    it("wait runs until its seconds have passed, then succeeds, then starts over", function()
      local w = bt.wait(0.5)
      -- its time counts the dt of every tick it ran, this one included
      assert.are.same({ "running", "running", "running", "success", "running" },
        ticks(w, {}, 5, 0.125))
    end)
  end)

  describe("composites", function()
    it("sequence: children in order, resumes the running one, fails at the first failure", function()
      local log = {}
      local tree = bt.sequence { scripted(log, "a", "success"), scripted(log, "b", "running", "running", "success"),
                                 scripted(log, "c", "failure") }
      assert.are.same({ "running", "running", "failure" }, ticks(tree, {}, 3))
      assert.are.same({ "a", "b", "b", "b", "c" }, log)
    end)

    it("selector: first child that does not fail wins; all failing fails", function()
      local log = {}
      local tree = bt.selector { scripted(log, "a", "failure"), scripted(log, "b", "running", "success"),
                                 scripted(log, "c", "success") }
      assert.are.same({ "running", "success" }, ticks(tree, {}, 2))
      assert.are.same({ "a", "b", "b" }, log)
      assert.are.equal("failure", bt.selector { bt.condition(function() return false end) }:tick({}, nil, 0.1))
    end)

    it("a reactive selector lets a higher-priority child take over, and the interrupted one restarts", function()
      local self = { alarm = false }
      local starts = 0
      local tree = bt.selector { reactive = true,
        bt.condition(function(s) return s.alarm end, "alarm"),
        bt.action(function(_, _, _, mem)
          if mem.time == 0.1 then starts = starts + 1 end
          return "running"
        end, "patrol"),
      }
      ticks(tree, self, 3)
      assert.are.equal(1, starts)
      self.alarm = true
      assert.are.equal("success", tree:tick(self, nil, 0.1))
      self.alarm = false
      ticks(tree, self, 2)
      assert.are.equal(2, starts) -- patrol was stopped, so it started again
      -- a selector with memory would have kept ticking patrol
      local plain = bt.selector { bt.condition(function(s) return s.alarm end), bt.wait(10) }
      local s2 = { alarm = false }
      ticks(plain, s2, 2)
      s2.alarm = true
      assert.are.equal("running", plain:tick(s2, nil, 0.1))
    end)

    it("parallel: success on all / failure on one by default, other policies on request", function()
      local function p(spec, ...)
        for i, c in ipairs { ... } do spec[i] = c end
        return bt.parallel(spec)
      end
      local log = {}
      local both = p({}, scripted(log, "a", "running", "success"), scripted(log, "b", "success"))
      assert.are.same({ "running", "success" }, ticks(both, {}, 2))
      assert.are.same({ "a", "b", "a" }, log) -- b finished in the first tick, not ticked again
      local one_fails = p({}, bt.wait(1), bt.condition(function() return false end))
      assert.are.equal("failure", one_fails:tick({}, nil, 0.1))
      local any = p({ success = "one" }, bt.wait(1), bt.wait(0.2))
      assert.are.same({ "running", "success" }, ticks(any, {}, 2))
      local all_fail = p({ failure = "all" }, bt.condition(function() return false end), bt.wait(0.2))
      assert.are.same({ "running", "failure" }, ticks(all_fail, {}, 2)) -- wait succeeded: success needs all
      local tolerant = p({ success = "one", failure = "all" }, bt.condition(function() return false end),
                         bt.wait(0.2))
      assert.are.same({ "running", "success" }, ticks(tolerant, {}, 2))
    end)
  end)

  describe("decorators", function()
    it("invert swaps success and failure, leaves running", function()
      assert.are.equal("failure", bt.invert(bt.condition(function() return true end)):tick({}, nil, 0.1))
      assert.are.equal("success", bt.invert(bt.condition(function() return false end)):tick({}, nil, 0.1))
      assert.are.equal("running", bt.invert(bt.wait(1)):tick({}, nil, 0.1))
    end)

    it("repeat runs its child n times, one run a tick, and stops at a failure", function()
      local log = {}
      local r = bt.repeat_(3, scripted(log, "x", "success"))
      assert.are.same({ "running", "running", "success", "running" }, ticks(r, {}, 4))
      local f = bt["repeat"](5, bt.condition(function() return false end))
      assert.are.equal("failure", f:tick({}, nil, 0.1))
      local forever = bt.repeat_(math.huge, bt.condition(function() return true end))
      for _, s in ipairs(ticks(forever, {}, 50)) do assert.are.equal("running", s) end
    end)

    it("cooldown fails without ticking its child for its seconds after the child finished", function()
      local log = {}
      local c = bt.cooldown(0.3, scripted(log, "shoot", "success"))
      -- dt 0.1: fires at t=0.1, ready again at 0.4
      assert.are.same({ "success", "failure", "failure", "success", "failure" }, ticks(c, {}, 5))
      assert.are.equal(2, #log)
    end)

    it("timeout fails a child still running after its seconds, and the child restarts next time", function()
      local starts = 0
      local child = bt.action(function(_, _, _, mem)
        if mem.time <= 0.1 then starts = starts + 1 end
        return "running"
      end)
      local t = bt.timeout(0.3, child)
      assert.are.same({ "running", "running", "failure", "running" }, ticks(t, {}, 4))
      assert.are.equal(2, starts)
      assert.are.equal("success", bt.timeout(0.3, bt.wait(0.2)):tick({}, nil, 0.2))
    end)

    it("guard ticks its child only while its condition holds, and resets it when it does not", function()
      local self = { ok = true }
      local g = bt.guard(function(s) return s.ok end, bt.wait(0.3))
      assert.are.same({ "running", "running" }, ticks(g, self, 2))
      self.ok = false
      assert.are.equal("failure", g:tick(self, nil, 0.1))
      self.ok = true
      -- the wait starts over: 3 more ticks, not 1
      assert.are.same({ "running", "running", "success" }, ticks(g, self, 3))
    end)
  end)

  describe("state in self", function()
    it("lives in self.bt under node paths (names given or kind#index), or in self[key]", function()
      local tree = bt.sequence { name = "root", bt.wait(1, "idle"), bt.invert(bt.wait(1)) }
      local self = {}
      tree:tick(self, nil, 0.1)
      assert.are.equal("root/idle", self.bt.active)
      assert.are.equal("root\nroot/idle\nroot/invert#2\nroot/invert#2/wait#1", self.bt.layout)
      assert.are.equal("root/invert#2/wait#1", tree.children[2].children[1].path)
      local other = bt.selector { key = "combat", bt.wait(1) }
      other:tick(self, nil, 0.1)
      assert.are.equal("selector/wait#1", self.combat.active)
    end)

    it("follows its nodes by path when a rebuilt tree adds, moves and renames nodes", function()
      local function counter(tag)
        return bt.action(function(self, _, _, mem)
          mem.n = (mem.n or 0) + 1
          self.last = tag .. mem.n
          return "running"
        end, "work")
      end
      local self = {}
      local v1 = bt.sequence { name = "r", bt.wait(0.1, "settle"), counter("v1:") }
      ticks(v1, self, 3) -- settle succeeds on the first tick, work runs on each
      assert.are.equal("v1:3", self.last)
      -- a new first child: "work" moves from id 3 to id 4 and carries on
      local v2 = bt.sequence { name = "r", bt.condition(function() return true end, "check"),
                               bt.wait(0.1, "settle"), counter("v2:") }
      v2:tick(self, nil, 0.1)
      assert.are.equal("v2:4", self.last)
      -- the same work under a parallel: a new path, a fresh run
      local v3 = bt.sequence { name = "r", bt.wait(0.1, "settle"),
                               bt.parallel { name = "both", counter("v3:"), bt.wait(5) } }
      v3:tick(self, nil, 0.1)
      assert.are.equal("v3:1", self.last)
    end)

    it("two agents with one tree keep separate states", function()
      local tree = bt.sequence { bt.wait(0.2), bt.action(function() return "success" end) }
      local a, b = {}, {}
      assert.are.equal("running", tree:tick(a, nil, 0.1))
      assert.are.same({ "running", "success", "running" }, ticks(tree, b, 3))
      assert.are.equal("success", tree:tick(a, nil, 0.1))
    end)

    it("holds plain data only (snapshots copy it; hot reload leaves it alone)", function()
      local tree = bt.parallel { bt.cooldown(1, bt.wait(0.1)), bt.repeat_(3, bt.action(function() return true end)) }
      local self = {}
      ticks(tree, self, 5)
      local function plain(v)
        if type(v) == "table" then
          assert.is_nil(getmetatable(v))
          for k, x in pairs(v) do plain(k) plain(x) end
        else
          assert.is_true(type(v) == "string" or type(v) == "number" or type(v) == "boolean")
        end
      end
      plain(self.bt)
    end)
  end)

  describe("bad input", function()
    it("raises in Lua's standard form", function()
      Spec.raises(function() bt.sequence {} end, "bad argument #1 to 'sequence' (at least one child expected)")
      Spec.raises(function() bt.selector { 1 } end, "bad argument #1 to 'selector' (child 1 is not a steer.bt node")
      Spec.raises(function() bt.action(42) end, "bad argument #1 to 'action' (function expected, got number)")
      Spec.raises(function() bt.action(print, "a/b") end, "bad argument #2 to 'action'")
      Spec.raises(function() bt.condition(nil) end, "bad argument #1 to 'condition'")
      Spec.raises(function() bt.wait(-1) end, "bad argument #1 to 'wait' (seconds must be finite and >= 0)")
      Spec.raises(function() bt.wait(0 / 0) end, "bad argument #1 to 'wait'")
      Spec.raises(function() bt.cooldown(math.huge, bt.wait(1)) end, "bad argument #1 to 'cooldown'")
      Spec.raises(function() bt.timeout(1, {}) end, "bad argument #2 to 'timeout' (steer.bt node expected")
      Spec.raises(function() bt.guard(true, bt.wait(1)) end, "bad argument #1 to 'guard'")
      Spec.raises(function() bt.repeat_(1.5, bt.wait(1)) end, "bad argument #1 to 'repeat'")
      Spec.raises(function() bt.invert(nil) end, "bad argument #1 to 'invert'")
      Spec.raises(function() bt.parallel { success = "most", bt.wait(1) } end,
        "bad argument #1 to 'parallel' (success must be 'all' or 'one')")
      Spec.raises(function() bt.sequence { bt.wait(1, "x"), bt.wait(2, "x") } end,
        "bad argument #1 to 'sequence' (two children named 'x')")
      local w = bt.wait(1)
      bt.invert(w)
      Spec.raises(function() bt.sequence { w } end, "child 1 is already in a tree")
      local tree = bt.wait(1)
      Spec.raises(function() tree:tick(nil, nil, 0.1) end, "bad argument #1 to 'tick' (table expected, got nil)")
      Spec.raises(function() tree:tick({}, nil, 0 / 0) end, "bad argument #3 to 'tick'")
      Spec.raises(function() tree:tick({}, nil, -1) end, "bad argument #3 to 'tick'")
      Spec.raises(function() tree.tick({}, {}, nil, 1) end, "bad self")
      local root = bt.sequence { bt.wait(1) }
      Spec.raises(function() root.children[1]:tick({}, nil, 0.1) end, "tick the tree's root")
    end)

    it("reports the caller's line", function()
      local ok, err = pcall(function() bt.sequence {} end)
      assert.is_false(ok)
      assert.truthy(err:find("bt_spec.lua:%d+: bad argument"))
    end)
  end)
end)

describe("steer.bt in a world", function()
  local steer = require "steer"
  -- every agent runs one tree: wander; seek the nearest other agent when it
  -- is close (a reactive guard), with a cooldown'd burst and a timeout
  local function run(threads)
    local tree = bt.selector { reactive = true,
      bt.sequence { name = "chase",
        bt.condition(function(self, agent)
          self.target = agent.world:nearest(agent, 30)
          return self.target ~= nil
        end, "near"),
        bt.timeout(1.5, bt.action(function(self, agent)
          agent:seek(self.target.pos)
          return "running"
        end, "seek")),
      },
      bt.sequence { name = "roam", bt.cooldown(0.5, bt.action(function(_, agent)
        agent:apply(steer.vec2.from_angle(agent.world:random() * 6.283, 50)) return true
      end, "kick")), bt.action(function(_, agent) agent:wander() return "running" end, "wander") },
    }
    local w = steer.world { width = 400, height = 400, edges = "wrap", seed = 5, threads = threads }
    package.loaded.bt_spec_brain = { update = function(self, agent, dt) tree:tick(self, agent, dt) end }
    for _ = 1, 60 do
      w:spawn { pos = { w:random() * 400, w:random() * 400 }, brain = "bt_spec_brain", max_speed = 80 }
    end
    local chasing = 0
    for _ = 1, 200 do w:step() end
    for a in w:agents() do
      if a.self.bt.active == "selector/chase/timeout#2/seek" then chasing = chasing + 1 end
    end
    package.loaded.bt_spec_brain = nil
    return w:checksum(), chasing
  end

  it("runs on across a snapshot and restore as if never stopped", function()
    local tree = bt.sequence { name = "r", bt.cooldown(0.3, bt.action(function(self, agent)
        agent:apply(steer.vec2(30, 0)) self.kicks = (self.kicks or 0) + 1 return true end, "kick")),
      bt.action(function(_, agent, _, mem)
        agent:seek(steer.vec2(200 + 50 * (mem.time % 2), 100))
        return mem.time < 0.5 and "running" or "success"
      end, "go") }
    package.loaded.bt_snap_brain = { update = function(self, agent, dt) tree:tick(self, agent, dt) end }
    local w = steer.world { seed = 3 }
    for i = 1, 5 do w:spawn { pos = { 20 * i, 50 }, brain = "bt_snap_brain" } end
    for _ = 1, 20 do w:step() end
    local snap = w:snapshot()
    for _ = 1, 40 do w:step() end
    local want, kicks = w:checksum(), {}
    for a in w:agents() do kicks[#kicks + 1] = a.self.kicks end
    w:restore(snap)
    for _ = 1, 40 do w:step() end
    package.loaded.bt_snap_brain = nil
    assert.are.equal(want, w:checksum())
    local again = {}
    for a in w:agents() do again[#again + 1] = a.self.kicks end
    assert.are.same(kicks, again)
  end)

  it("gives the same checksum on 1 and 2 threads, and on a second run", function()
    local c1, chasing = run(1)
    local c2 = run(2)
    assert.are.equal(c1, c2)
    assert.are.equal(c1, (run(1)))
    assert.is_true(chasing > 0 and chasing < 60, "some agents chase, not all: " .. chasing)
  end)
end)

describe("steer.bt hot reload", function()
  local steer = require "steer"
  if not Spec.can_hotswap then
    pending("steer.reload cannot merge on Lua 5.1")
    return
  end
  local dir, name, file
  local SRC = [[
    local bt = require "steer.bt"
    local tree = bt.sequence { name = "root",
      bt.action(function(self) self.log[#self.log + 1] = "settle" return true end, "settle"),
      bt.action(function(self, agent, dt, mem)
        mem.n = (mem.n or 0) + 1
        self.log[#self.log + 1] = "v1:" .. mem.n
        return "running"
      end, "work"),
    }
    local brain = {}
    function brain.spawn(self) self.log = {} end
    function brain.update(self, agent, dt) tree:tick(self, agent, dt) end
    return brain
  ]]
  before_each(function()
    local base = os.tmpname()
    os.remove(base)
    dir = base .. "_bt"
    assert(os.execute("mkdir -p '" .. dir .. "'"))
    name = "btreload" .. base:match("([%w_]+)$")
    file = dir .. "/" .. name .. ".lua"
    package.path = dir .. "/?.lua;" .. package.path
  end)
  after_each(function()
    os.remove(file)
    os.remove(dir)
    package.loaded[name] = nil
  end)
  local function write(src)
    local f = assert(io.open(file, "w"))
    f:write(src)
    f:close()
  end

  it("a running action edited mid-run keeps running with the new code; a renamed one resets", function()
    write(SRC)
    local w = steer.world { seed = 1 }
    local a = w:spawn { brain = name }
    for _ = 1, 3 do w:step() end
    assert.are.same({ "settle", "v1:1", "v1:2", "v1:3" }, a.self.log)
    write((SRC:gsub('"v1:"', '"v2:"')))
    local ok, info = steer.reload(name)
    assert(ok, info)
    assert.are.equal(1, info.functions)
    w:step()
    -- the same run of the same node (mem.n went on), with the new code, and
    -- the sequence did not start over (no second "settle")
    assert.are.equal("v2:4", a.self.log[5])
    write((SRC:gsub('"v1:"', '"v3:"'):gsub('"work"', '"labour"')))
    assert(steer.reload(name))
    w:step()
    -- root/labour is a new node: the sequence lost its running child, so it
    -- starts over (settle again), and labour starts a fresh run
    assert.are.same({ "settle", "v3:1" }, { a.self.log[6], a.self.log[7] })
    assert.are.equal(7, #a.self.log)
    assert.are.equal("root/labour", a.self.bt.active)
    assert.is_nil(a.self.bt.layout:find("root/work", 1, true)) -- its state is gone
  end)
end)
