-- steer.bt — behaviour trees for brains, pure Lua.
--
--   local bt = require "steer.bt"
--   local tree = bt.selector{ reactive = true,
--       bt.sequence{ name = "chase",
--           bt.condition(function(self, agent) return self.target ~= nil end),
--           bt.action(function(self, agent, dt) agent:pursue(self.target) return "running" end),
--       },
--       bt.action(function(self, agent) agent:wander() return "running" end, "wander"),
--   }
--   function brain.update(self, agent, dt) tree:tick(self, agent, dt) end
--
-- A tree keeps nothing of its own while it runs: every node's running state
-- lives in self.bt (self[root.key]) under the node's path, a string made of
-- its name (given, or its kind and its place among its siblings: "action#2")
-- and its parents' ("selector/chase/action#2"). So a reload that rebuilds the
-- tree with new functions keeps a running node running under the new code,
-- and a renamed or removed node starts afresh (its old state is dropped).
-- self.bt holds plain data only (numbers, strings, tables), which snapshots
-- copy and hot reload leaves alone.
--
-- A node that was running on the previous tick and is ticked again carries
-- on; any other tick starts it afresh (a node that a selector or a guard
-- stopped ticking is thereby reset, with no callback). Ticks run the
-- children in array order and read no clock but the dt passed in: a tree is
-- as deterministic as its leaves.

local bt = {}

local Node = {}
Node.__index = Node
bt.Node = Node

local RUN = {} -- kind -> function(node, S, self, agent, dt) -> status

local SUCCESS, FAILURE, RUNNING = "success", "failure", "running"
local PRUNE_EVERY = 64 -- ticks between two sweeps of state left by removed nodes

-- ------------------------------------------------------------ argument checks

-- Checks raise { bad = message }; api() turns that into an error at the
-- caller of the public function, in Lua's standard form.
local function argerror(n, fname, msg)
    error({ bad = ("bad argument #%d to '%s' (%s)"):format(n, fname, msg) })
end

local function typeerror(n, fname, expected, got)
    argerror(n, fname, ("%s expected, got %s"):format(expected, type(got)))
end

local function api(impl)
    return function(...)
        local ok, r = pcall(impl, ...)
        if ok then return r end
        if type(r) == "table" and r.bad then error(r.bad, 2) end
        error(r, 0)
    end
end

local function is_node(v)
    return type(v) == "table" and getmetatable(v) == Node
end

local function check_name(n, fname, name)
    if name == nil then return nil end
    if type(name) ~= "string" then typeerror(n, fname, "string", name) end
    if name == "" or name:find("[/#]") then
        argerror(n, fname, "a node name must be non-empty, without '/' or '#'")
    end
    return name
end

-- The field of self a root keeps its state in (default "bt").
local function check_key(fname, key)
    if key ~= nil and (type(key) ~= "string" or key == "") then
        argerror(1, fname, "key must be a non-empty string")
    end
    return key
end

local function check_seconds(n, fname, s)
    if type(s) ~= "number" then typeerror(n, fname, "number", s) end
    if not (s >= 0 and s < math.huge) then argerror(n, fname, "seconds must be finite and >= 0") end
    return s
end

-- ------------------------------------------------------------------ building

-- Every node of the subtree at node, parents before children.
local function each_node(node, out)
    out[#out + 1] = node
    for _, c in ipairs(node.children) do each_node(c, out) end
    return out
end

-- A parent takes child as its i-th: the child's subtree has its paths
-- prefixed by the child's segment under the parent's own path.
local function adopt(parent, child, i)
    child.parent = true
    local seg = child.name or (child.kind .. "#" .. i)
    local old = child.path
    for _, d in ipairs(each_node(child, {})) do
        d.path = parent.path .. "/" .. seg .. d.path:sub(#old + 1)
    end
end

local function new_node(kind, name, children, fname)
    local node = setmetatable({ kind = kind, name = name, path = name or kind, children = {} }, Node)
    local seen = {}
    for i, c in ipairs(children) do
        if not is_node(c) then
            argerror(1, fname, ("child %d is not a steer.bt node (got %s)"):format(i, type(c)))
        end
        if c.parent then argerror(1, fname, ("child %d is already in a tree"):format(i)) end
        if c.name and seen[c.name] then argerror(1, fname, ("two children named '%s'"):format(c.name)) end
        if c.name then seen[c.name] = true end
    end
    for i, c in ipairs(children) do
        adopt(node, c, i)
        node.children[i] = c
    end
    return node
end

-- sequence and selector: spec = { child, child, ..., name =, reactive =, key = }.
local function composite(kind, fname)
    return function(spec)
        if type(spec) ~= "table" or is_node(spec) then typeerror(1, fname, "table of children", spec) end
        local name = check_name(1, fname, spec.name)
        if #spec == 0 then argerror(1, fname, "at least one child expected") end
        local node = new_node(kind, name, spec, fname)
        node.reactive = spec.reactive and true or false
        node.key = check_key(fname, spec.key)
        return node
    end
end

--- Runs its children in order: fails at the first that fails, succeeds when
--- all have succeeded; a running child is resumed on the next tick (with
--- `reactive = true`, the earlier children are ticked again first).
bt.sequence = api(composite("sequence", "sequence"))
--- Runs its children in order until one does not fail: succeeds at the
--- first success, fails when all have failed (`reactive = true`: a
--- higher-priority child that stops failing takes over from a running one).
bt.selector = api(composite("selector", "selector"))

local POLICIES = { success = { all = true, one = true }, failure = { one = true, all = true } }

--- Ticks every child that has not finished in this run, each tick.
--- spec.success: "all" (default) or "one"; spec.failure: "one" (default) or "all".
bt.parallel = api(function(spec)
    if type(spec) ~= "table" or is_node(spec) then typeerror(1, "parallel", "table of children", spec) end
    local name = check_name(1, "parallel", spec.name)
    if #spec == 0 then argerror(1, "parallel", "at least one child expected") end
    local success, failure = spec.success or "all", spec.failure or "one"
    if not POLICIES.success[success] then argerror(1, "parallel", "success must be 'all' or 'one'") end
    if not POLICIES.failure[failure] then argerror(1, "parallel", "failure must be 'one' or 'all'") end
    local node = new_node("parallel", name, spec, "parallel")
    node.success, node.failure = success, failure
    node.key = check_key("parallel", spec.key)
    return node
end)

local function decorator(kind, fname, child, name, argn)
    if not is_node(child) then typeerror(argn, fname, "steer.bt node", child) end
    return new_node(kind, check_name(argn + 1, fname, name), { child }, fname)
end

--- Success becomes failure and failure success; running stays running.
bt.invert = api(function(child, name)
    return decorator("invert", "invert", child, name, 1)
end)

--- Runs its child to the end `times` times (math.huge: for ever), one run
--- per tick at most; fails when the child fails.
bt.repeat_ = api(function(times, child, name)
    if type(times) ~= "number" then typeerror(1, "repeat", "number", times) end
    if not (times >= 1 and (times == math.huge or times % 1 == 0)) then
        argerror(1, "repeat", "times must be an integer >= 1 or math.huge")
    end
    local node = decorator("repeat", "repeat", child, name, 2)
    node.times = times
    return node
end)
bt["repeat"] = bt.repeat_

--- After its child finishes (success or failure), fails at once without
--- ticking it for `seconds` of the tree's time.
bt.cooldown = api(function(seconds, child, name)
    check_seconds(1, "cooldown", seconds)
    local node = decorator("cooldown", "cooldown", child, name, 2)
    node.seconds = seconds
    return node
end)

--- Fails (and resets its child) when the child is still running after
--- `seconds` since it started.
bt.timeout = api(function(seconds, child, name)
    check_seconds(1, "timeout", seconds)
    local node = decorator("timeout", "timeout", child, name, 2)
    node.seconds = seconds
    return node
end)

--- Ticks its child while fn(self, agent) is true; else fails (and resets a
--- running child). Checked on every tick.
bt.guard = api(function(fn, child, name)
    if type(fn) ~= "function" then typeerror(1, "guard", "function", fn) end
    local node = decorator("guard", "guard", child, name, 2)
    node.fn = fn
    return node
end)

local function leaf(kind, fname, fn, name)
    if type(fn) ~= "function" then typeerror(1, fname, "function", fn) end
    local node = new_node(kind, check_name(2, fname, name), {}, fname)
    node.fn = fn
    return node
end

--- fn(self, agent, dt, mem) returns "success", "failure", "running" or a
--- boolean (true: success); mem is a table of this run's own (fresh when
--- the action starts), mem.time the seconds it has run including this tick.
bt.action = api(function(fn, name)
    return leaf("action", "action", fn, name)
end)

--- fn(self, agent) true: success, else failure.
bt.condition = api(function(fn, name)
    return leaf("condition", "condition", fn, name)
end)

--- Running until `seconds` have passed since it started, then success.
bt.wait = api(function(seconds, name)
    local node = new_node("wait", check_name(2, "wait", name), {}, "wait")
    node.seconds = check_seconds(1, "wait", seconds)
    return node
end)

-- ------------------------------------------------------------------- ticking

-- The state of node for this tick: carried on when it was running on the
-- previous tick and its parent carries on too, else fresh (m.ready, a
-- cooldown's, survives). A parent that finished while a child ran (a
-- timeout, a parallel) thus restarts that child with itself.
local function enter(node, S, dt, parent_fresh)
    local nodes = S.nodes
    local m = nodes[node.path]
    if m == nil then
        m = {}
        nodes[node.path] = m
    end
    local fresh = parent_fresh or m.status ~= RUNNING or m.tick ~= S.tick - 1
    if fresh then
        m.time, m.i, m.n, m.done, m.mem = dt, 1, 0, nil, nil
    else
        m.time = m.time + dt
    end
    m.tick = S.tick
    return m, fresh
end

local function tick(node, S, self, agent, dt, parent_fresh)
    local m, fresh = enter(node, S, dt, parent_fresh)
    local r = RUN[node.kind](node, m, S, self, agent, dt, fresh)
    m.status = r
    return r
end

-- sequence: `stop` is the status that ends it early, `all` the one it
-- returns when every child gave the other.
local function ordered(stop, all)
    return function(node, m, S, self, agent, dt, fresh)
        local kids = node.children
        local i = node.reactive and 1 or m.i
        while i <= #kids do
            local r = tick(kids[i], S, self, agent, dt, fresh)
            if r == RUNNING then
                m.i = i
                return RUNNING
            elseif r == stop then
                return stop
            end
            i = i + 1
        end
        return all
    end
end
RUN.sequence = ordered(FAILURE, SUCCESS)
RUN.selector = ordered(SUCCESS, FAILURE)

function RUN.parallel(node, m, S, self, agent, dt, fresh)
    local done = m.done
    if done == nil then
        done = {}
        m.done = done
    end
    local kids = node.children
    local ok, failed = 0, 0
    for i = 1, #kids do
        local r = done[i] or tick(kids[i], S, self, agent, dt, fresh)
        if r ~= RUNNING then done[i] = r end
        if r == SUCCESS then ok = ok + 1 elseif r == FAILURE then failed = failed + 1 end
    end
    local n = #kids
    -- both policies met on one tick: failure wins
    if (node.failure == "one" and failed > 0) or failed == n then return FAILURE end
    if (node.success == "one" and ok > 0) or ok == n then return SUCCESS end
    if ok + failed == n then return FAILURE end -- all finished, success policy unmet
    return RUNNING
end

function RUN.invert(node, _, S, self, agent, dt, fresh)
    local r = tick(node.children[1], S, self, agent, dt, fresh)
    if r == SUCCESS then return FAILURE elseif r == FAILURE then return SUCCESS end
    return r
end

function RUN.cooldown(node, m, S, self, agent, dt, fresh)
    if m.ready and S.clock < m.ready then return FAILURE end
    local r = tick(node.children[1], S, self, agent, dt, fresh)
    if r ~= RUNNING then m.ready = S.clock + node.seconds end
    return r
end

RUN["repeat"] = function(node, m, S, self, agent, dt, fresh)
    local r = tick(node.children[1], S, self, agent, dt, fresh)
    if r ~= SUCCESS then return r end
    m.n = m.n + 1
    if m.n >= node.times then return SUCCESS end
    return RUNNING -- the next run of the child starts on the next tick
end

function RUN.timeout(node, m, S, self, agent, dt, fresh)
    local r = tick(node.children[1], S, self, agent, dt, fresh)
    if r == RUNNING and m.time >= node.seconds then return FAILURE end
    return r
end

function RUN.guard(node, _, S, self, agent, dt, fresh)
    if not node.fn(self, agent) then return FAILURE end
    return tick(node.children[1], S, self, agent, dt, fresh)
end

local RESULT = { success = SUCCESS, failure = FAILURE, running = RUNNING, [true] = SUCCESS, [false] = FAILURE }

function RUN.action(node, m, S, self, agent, dt)
    local mem = m.mem
    if mem == nil then
        mem = {}
        m.mem = mem
    end
    mem.time = m.time
    local got = node.fn(self, agent, dt, mem)
    local r = RESULT[got == nil and "" or got]
    if r == nil then
        error(("steer.bt: action '%s' returned %s (expected \"success\", \"failure\", \"running\" or a boolean)")
            :format(node.path, got == nil and "nil" or tostring(got)), 0)
    end
    if r == RUNNING then S.active = node.path end
    return r
end

function RUN.condition(node, _, _, self, agent)
    return node.fn(self, agent) and SUCCESS or FAILURE
end

function RUN.wait(node, m, S)
    if m.time >= node.seconds then return SUCCESS end
    S.active = node.path
    return RUNNING
end

-- Drops the state of paths that are no longer in the tree (a node renamed
-- or removed by a reload). Deleting while traversing is allowed, and which
-- keys go does not depend on the traversal order.
local function prune(root, S)
    local live = {}
    for _, d in ipairs(each_node(root, {})) do live[d.path] = true end
    for path in pairs(S.nodes) do
        if not live[path] then S.nodes[path] = nil end
    end
end

--- tree:tick(self, agent, dt): one tick of the tree rooted at this node;
--- returns "success", "failure" or "running". State in self[tree.key]
--- (default self.bt): nodes (per path), tick (count), clock (seconds),
--- active (the path of the running leaf, or nil).
function Node.tick(root, self, agent, dt)
    if not is_node(root) then error("calling 'tick' on bad self (steer.bt node expected)", 2) end
    if type(self) ~= "table" then
        error(("bad argument #1 to 'tick' (table expected, got %s)"):format(type(self)), 2)
    end
    if type(dt) ~= "number" then
        error(("bad argument #3 to 'tick' (number expected, got %s)"):format(type(dt)), 2)
    end
    if not (dt >= 0 and dt < math.huge) then error("bad argument #3 to 'tick' (dt must be finite and >= 0)", 2) end
    local key = root.key or "bt"
    local S = self[key]
    if type(S) ~= "table" then
        S = { nodes = {}, tick = 0, clock = 0 }
        self[key] = S
    end
    S.tick, S.clock, S.active = S.tick + 1, S.clock + dt, nil
    if S.tick % PRUNE_EVERY == 1 then prune(root, S) end
    return tick(root, S, self, agent, dt)
end

return bt
