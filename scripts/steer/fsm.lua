-- steer.fsm — hierarchical state machines for brains (Buckland's state
-- machine: a current state, a global state, a previous state, messages).
--
--   local fsm = require "steer.fsm"
--   local machine = fsm.new({
--       patrol = { update = function(self, agent, dt) ... return "combat" end },
--       combat = { initial = "aim",            -- a state with sub-states
--                  update = function(self, agent, dt) if self.hp < 10 then return "flee" end end,
--                  states = { aim = { ... }, fire = { ... } } },
--       flee   = { enter = ..., exit = ..., message = function(self, agent, msg) ... end },
--   }, "patrol", { global = { update = ..., message = ... } })
--   function brain.spawn(self, agent) machine:start(self, agent) end
--   function brain.update(self, agent, dt) machine:update(self, agent, dt) end
--   function brain.message(self, agent, msg) machine:handle(self, agent, msg) end
--
-- A state is a table with optional enter(self, agent), update(self, agent,
-- dt), exit(self, agent) and message(self, agent, msg); update and message
-- may return the name of a state to change to. A state with `states` (and
-- `initial`, the sub-state it starts in) is a parent: being in one of its
-- sub-states is being in it too. State names are unique in a machine.
--
-- The machine keeps nothing of its own: self.state is the name of the
-- current (innermost) state, self.state_time the seconds spent in it,
-- self.previous_state the one before, so a hot reload that rebuilds the
-- machine carries on where the old one was, and a state that vanished in a
-- reload restarts the machine in its initial state.

local fsm = {}
fsm.__index = fsm

-- The checks of new raise { bad = message }; new reports it at its caller.
local function bad(n, fname, msg)
    error({ bad = ("bad argument #%d to '%s' (%s)"):format(n, fname, msg) })
end

local function sorted_keys(t)
    local keys = {}
    for k in pairs(t) do
        if type(k) ~= "string" then bad(1, "new", "state names must be strings") end
        keys[#keys + 1] = k
    end
    table.sort(keys)
    return keys
end

local HOOKS = { "enter", "update", "exit", "message" }

local function check_state(name, s)
    if type(s) ~= "table" then bad(1, "new", ("state '%s' is not a table"):format(name)) end
    for _, h in ipairs(HOOKS) do
        if s[h] ~= nil and type(s[h]) ~= "function" then
            bad(1, "new", ("state '%s': %s must be a function"):format(name, h))
        end
    end
end

-- Flattens nested states into flat[name] = state and parent[name] = the
-- enclosing state's name (false at the top), in sorted order so that errors
-- do not depend on table order.
local function flatten(states, parent_name, flat, parent)
    for _, name in ipairs(sorted_keys(states)) do
        local s = states[name]
        check_state(name, s)
        if flat[name] then bad(1, "new", ("two states named '%s'"):format(name)) end
        flat[name], parent[name] = s, parent_name
        if s.states ~= nil then
            if type(s.states) ~= "table" or next(s.states) == nil then
                bad(1, "new", ("state '%s': states must be a non-empty table"):format(name))
            end
            flatten(s.states, name, flat, parent)
        end
    end
end

--- fsm.new(states, initial [, opts]): opts.global is a state whose update
--- runs before the current state's and whose message handler runs when the
--- current state (and its parents) did not handle a message.
function fsm.new(states, initial, opts)
    if type(states) ~= "table" then
        error(("bad argument #1 to 'new' (table of states expected, got %s)"):format(type(states)), 2)
    end
    local flat, parent = {}, {}
    local ok, err = pcall(flatten, states, false, flat, parent)
    if not ok then error(type(err) == "table" and err.bad or err, 2) end
    for name, s in pairs(flat) do
        if s.states and not (s.initial and parent[s.initial] == name) then
            error(("bad argument #1 to 'new' (state '%s': initial must name one of its states)"):format(name), 2)
        end
    end
    if flat[initial] == nil then
        error(("bad argument #2 to 'new' (no state named '%s')"):format(tostring(initial)), 2)
    end
    if opts ~= nil and type(opts) ~= "table" then
        error(("bad argument #3 to 'new' (table expected, got %s)"):format(type(opts)), 2)
    end
    local global = opts and opts.global
    if global ~= nil then
        if type(global) ~= "table" then error("bad argument #3 to 'new' (global must be a state table)", 2) end
        ok, err = pcall(check_state, "global", global)
        if not ok then error(type(err) == "table" and err.bad or err, 2) end
    end
    return setmetatable({ states = flat, parent = parent, initial = initial, global = global }, fsm)
end

function fsm.get(m, name)
    local s = m.states[name]
    if not s then error("fsm: no state named '" .. tostring(name) .. "'", 3) end
    return s
end

-- The innermost state entering `name` leads to (a parent's initial, down).
local function leaf_of(m, name)
    local s = m.states[name]
    while s.states do
        name = s.initial
        s = m.states[name]
    end
    return name
end

-- The chain from the outermost state down to `name`.
local function chain(m, name)
    local out = {}
    while name do
        table.insert(out, 1, name)
        name = m.parent[name]
    end
    return out
end

-- Enter `name` (default: the initial state) without leaving anything: every
-- state from the outermost down to the innermost is entered.
function fsm.start(m, self, agent, name)
    name = name or m.initial
    m:get(name)
    local target = leaf_of(m, name)
    self.state, self.state_time = target, 0
    for _, n in ipairs(chain(m, target)) do
        local s = m.states[n]
        if s.enter then s.enter(self, agent) end
    end
end

-- Leave the current state and enter `name` (a parent: its initial state);
-- the states both lie in are neither left nor entered. Changing to the
-- current state is a no-op.
function fsm.change(m, self, agent, name)
    m:get(name)
    local target = leaf_of(m, name)
    if self.state == target then return end
    local from = m.states[self.state] and chain(m, self.state) or {}
    local to = chain(m, target)
    local common = 0
    while from[common + 1] ~= nil and from[common + 1] == to[common + 1] do common = common + 1 end
    for i = #from, common + 1, -1 do
        local s = m.states[from[i]]
        if s.exit then s.exit(self, agent) end
    end
    self.previous_state = self.state
    self.state, self.state_time = target, 0
    self.transitions = (self.transitions or 0) + 1
    for i = common + 1, #to do
        local s = m.states[to[i]]
        if s.enter then s.enter(self, agent) end
    end
end

--- Back to the state before the last change (Buckland's RevertToPreviousState).
function fsm.revert(m, self, agent)
    if self.previous_state and m.states[self.previous_state] then m:change(self, agent, self.previous_state) end
end

-- Run the global state's update, then each state's from the outermost to
-- the current one; the first that returns a name changes state and ends
-- the tick. A state that vanished in a reload (renamed, deleted) restarts
-- the machine in its initial state.
function fsm.update(m, self, agent, dt)
    if type(dt) ~= "number" or not (dt >= 0 and dt < math.huge) then
        error("bad argument #3 to 'update' (dt must be a finite number >= 0)", 2)
    end
    if not m.states[self.state] or m.states[self.state].states then m:start(self, agent, m.initial) end
    self.state_time = (self.state_time or 0) + dt
    local g = m.global
    local nxt = g and g.update and g.update(self, agent, dt)
    if not nxt then
        for _, n in ipairs(chain(m, self.state)) do
            local s = m.states[n]
            nxt = s.update and s.update(self, agent, dt)
            if nxt then break end
        end
    end
    if nxt then m:change(self, agent, nxt) end
end

--- Offers msg to the current state, then its parents outwards, then the
--- global state; the first message handler that returns a true value
--- handled it (a string: the state to change to). Returns whether one did.
function fsm.handle(m, self, agent, msg)
    if not m.states[self.state] then m:start(self, agent, m.initial) end
    local name = self.state
    while name do
        local s = m.states[name]
        local r = s.message and s.message(self, agent, msg)
        if r then
            if type(r) == "string" then m:change(self, agent, r) end
            return true
        end
        name = m.parent[name]
    end
    local g = m.global
    local r = g and g.message and g.message(self, agent, msg)
    if r then
        if type(r) == "string" then m:change(self, agent, r) end
        return true
    end
    return false
end

-- Whether the machine has a state with this name.
function fsm.has(m, name)
    return m.states[name] ~= nil
end

--- Whether the current state is `name` or lies inside it.
function fsm.is_in(m, self, name)
    local n = self.state
    while n do
        if n == name then return true end
        n = m.parent[n]
    end
    return false
end

return fsm
