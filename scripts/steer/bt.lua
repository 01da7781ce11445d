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

local RUN = {} -- kind -> function(node, S, self, agent, dt, parent_fresh) -> status

local SUCCESS, FAILURE, RUNNING = "success", "failure", "running"

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
    -- ids number the subtree (the node is 1); layout lists its paths in id
    -- order, and is kept by the root only
    local paths = {}
    for k, d in ipairs(each_node(node, {})) do
        d.id, paths[k] = k, d.path
        if k > 1 then d.layout = nil end
    end
    node.layout = table.concat(paths, "\n")
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
--
-- self.bt (S) holds, per node id (its place in the tree, in S.layout's
-- order of paths), only what that node needs; arrays, so that thousands of
-- agents' states stay small:
--   S.run[id]    the tick on which the node last returned "running"
--   S.time[id]   seconds the current run has lasted (wait, timeout, action)
--   S.mem[id]    an action's own table for its run
--   S.n[id]      the runs a repeat has counted
--   S.done[id]   a parallel's finished children (index -> status)
--   S.ready[id]  the tree time from which a cooldown lets its child run
-- Conditions, invert and guard keep nothing. When the tree's layout changes
-- (a reload added, removed, renamed or moved nodes), the state moves to the
-- new ids by path: a node whose path is gone loses its state, a new one
-- starts with none.
--
-- A node carries on its run when it returned "running" on the previous tick
-- and its parent carries on too; otherwise the run is fresh. A parent that
-- finished while a child ran (a timeout, a parallel) or stopped ticking it
-- (a selector, a guard) thereby restarts that child the next time.

-- Seconds the run of node has lasted, this tick's dt included.
local function run_time(node, S, dt, fresh)
    local t = fresh and dt or S.time[node.id] + dt
    S.time[node.id] = t
    return t
end

-- The node's result, recorded: a running node carries on next tick.
local function result(node, S, r)
    if r == RUNNING then S.run[node.id] = S.tick else S.run[node.id] = nil end
    return r
end

-- sequence: `stop` is the status that ends it early, `all` the one it
-- returns when every child gave the other.
local function ordered(stop, all)
    return function(node, S, self, agent, dt, pf)
        local fresh = (pf or S.run[node.id] ~= S.tick - 1)
        local kids = node.children
        local i = 1
        if not (fresh or node.reactive) then -- resume at the child that ran on the last tick
            local last, run = S.tick - 1, S.run
            for k = 1, #kids do
                if run[kids[k].id] == last then
                    i = k
                    break
                end
            end
        end
        while i <= #kids do
            local r = RUN[kids[i].kind](kids[i], S, self, agent, dt, fresh)
            if r == RUNNING then
                return result(node, S, RUNNING)
            elseif r == stop then
                return result(node, S, stop)
            end
            i = i + 1
        end
        return result(node, S, all)
    end
end
RUN.sequence = ordered(FAILURE, SUCCESS)
RUN.selector = ordered(SUCCESS, FAILURE)

-- Empties t (for reuse) or makes a new table. Which keys go first does not
-- matter: all go.
local function emptied(t)
    if t == nil then return {} end
    for k in pairs(t) do t[k] = nil end
    return t
end

function RUN.parallel(node, S, self, agent, dt, pf)
    local fresh = (pf or S.run[node.id] ~= S.tick - 1)
    local done = S.done[node.id]
    if fresh or done == nil then
        done = emptied(done)
        S.done[node.id] = done
    end
    local kids = node.children
    local ok, failed = 0, 0
    for i = 1, #kids do
        local r = done[i] or RUN[kids[i].kind](kids[i], S, self, agent, dt, fresh)
        if r ~= RUNNING then done[i] = r end
        if r == SUCCESS then ok = ok + 1 elseif r == FAILURE then failed = failed + 1 end
    end
    local n = #kids
    -- both policies met on one tick: failure wins
    if (node.failure == "one" and failed > 0) or failed == n then return result(node, S, FAILURE) end
    if (node.success == "one" and ok > 0) or ok == n then return result(node, S, SUCCESS) end
    if ok + failed == n then return result(node, S, FAILURE) end -- all finished, success policy unmet
    return result(node, S, RUNNING)
end

function RUN.invert(node, S, self, agent, dt, pf)
    local r = RUN[node.children[1].kind](node.children[1], S, self, agent, dt, pf)
    if r == SUCCESS then return FAILURE elseif r == FAILURE then return SUCCESS end
    return r
end

function RUN.cooldown(node, S, self, agent, dt, pf)
    local ready = S.ready[node.id]
    if ready and S.clock < ready then return FAILURE end
    local r = RUN[node.children[1].kind](node.children[1], S, self, agent, dt, pf)
    if r ~= RUNNING then S.ready[node.id] = S.clock + node.seconds end
    return r
end

RUN["repeat"] = function(node, S, self, agent, dt, pf)
    local fresh = (pf or S.run[node.id] ~= S.tick - 1)
    local r = RUN[node.children[1].kind](node.children[1], S, self, agent, dt, fresh)
    if r ~= SUCCESS then return result(node, S, r) end
    local n = (fresh and 0 or S.n[node.id]) + 1
    S.n[node.id] = n
    if n >= node.times then return result(node, S, SUCCESS) end
    return result(node, S, RUNNING) -- the next run of the child starts on the next tick
end

function RUN.timeout(node, S, self, agent, dt, pf)
    local fresh = (pf or S.run[node.id] ~= S.tick - 1)
    local t = run_time(node, S, dt, fresh)
    local r = RUN[node.children[1].kind](node.children[1], S, self, agent, dt, fresh)
    if r == RUNNING and t >= node.seconds then return result(node, S, FAILURE) end
    return result(node, S, r)
end

function RUN.guard(node, S, self, agent, dt, pf)
    if not node.fn(self, agent) then return FAILURE end
    return RUN[node.children[1].kind](node.children[1], S, self, agent, dt, pf)
end

local RESULT = { success = SUCCESS, failure = FAILURE, running = RUNNING, [true] = SUCCESS, [false] = FAILURE }

function RUN.action(node, S, self, agent, dt, pf)
    local fresh = (pf or S.run[node.id] ~= S.tick - 1)
    local mem = S.mem[node.id]
    if fresh or mem == nil then
        mem = emptied(mem)
        S.mem[node.id] = mem
    end
    mem.time = run_time(node, S, dt, fresh)
    local got = node.fn(self, agent, dt, mem)
    local r = RESULT[got == nil and "" or got]
    if r == nil then
        error(("steer.bt: action '%s' returned %s (expected \"success\", \"failure\", \"running\" or a boolean)")
            :format(node.path, got == nil and "nil" or tostring(got)), 0)
    end
    if r == RUNNING then S.active = node.path end
    return result(node, S, r)
end

function RUN.condition(node, _, self, agent)
    return node.fn(self, agent) and SUCCESS or FAILURE
end

function RUN.wait(node, S, _, _, dt, pf)
    local fresh = pf or S.run[node.id] ~= S.tick - 1
    if run_time(node, S, dt, fresh) >= node.seconds then return result(node, S, SUCCESS) end
    S.active = node.path
    return result(node, S, RUNNING)
end

local TABLES = { "run", "time", "mem", "n", "done", "ready" }

-- The paths of a layout string, in id order.
local function split(layout)
    local out = {}
    for p in (layout .. "\n"):gmatch("([^\n]*)\n") do out[#out + 1] = p end
    return out
end

-- Moves S's per-node state from its layout's ids to the tree's, by path.
local function relayout(S, layout)
    if S.layout ~= nil then
        local old_id = {}
        for id, p in ipairs(split(S.layout)) do old_id[p] = id end
        local new_paths = split(layout)
        for _, name in ipairs(TABLES) do
            local old, moved = S[name], {}
            for id, p in ipairs(new_paths) do
                local o = old_id[p]
                if o ~= nil then moved[id] = old[o] end
            end
            S[name] = moved
        end
    end
    S.layout = layout
end

local function new_state()
    local S = { tick = 0, clock = 0, layout = nil }
    for _, name in ipairs(TABLES) do S[name] = {} end
    return S
end

--- tree:tick(self, agent, dt): one tick of the tree rooted at this node;
--- returns "success", "failure" or "running". State in self[tree.key]
--- (default self.bt): tick (count), clock (seconds), active (the path of
--- the running leaf, or nil), layout and the per-node tables above.
function Node.tick(root, self, agent, dt)
    if not is_node(root) then error("calling 'tick' on bad self (steer.bt node expected)", 2) end
    if root.parent then error("calling 'tick' on a node inside a tree (tick the tree's root)", 2) end
    if type(self) ~= "table" then
        error(("bad argument #1 to 'tick' (table expected, got %s)"):format(type(self)), 2)
    end
    if type(dt) ~= "number" then
        error(("bad argument #3 to 'tick' (number expected, got %s)"):format(type(dt)), 2)
    end
    if not (dt >= 0 and dt < math.huge) then error("bad argument #3 to 'tick' (dt must be finite and >= 0)", 2) end
    local key = root.key or "bt"
    local S = self[key]
    if type(S) ~= "table" or type(S.run) ~= "table" then
        S = new_state()
        self[key] = S
    end
    if S.layout ~= root.layout then relayout(S, root.layout) end
    S.tick, S.clock, S.active = S.tick + 1, S.clock + dt, nil
    return RUN[root.kind](root, S, self, agent, dt, false)
end

return bt
