-- fsm.lua — a tiny state machine for brains.
--
-- A machine is a table of named states, each with optional
-- enter(self, agent), update(self, agent, dt) and exit(self, agent).
-- update may return the name of the next state to switch to it.
--
-- The machine keeps nothing of its own: the current state's name lives in
-- self.state (a string the app can draw) and the time spent in it in
-- self.state_time, so a hot reload that rebuilds the machine with new
-- functions carries on exactly where the old one was.
--
--   local machine = fsm.new({ wander = { update = ... }, pursue = { ... } }, "wander")
--   function brain.spawn(self, agent) machine:start(self, agent) end
--   function brain.update(self, agent, dt) machine:update(self, agent, dt) end

local fsm = {}
fsm.__index = fsm

-- states: { name = { enter =, update =, exit = } }; initial: the state a
-- machine (re)starts in when self.state names no state of this machine.
function fsm.new(states, initial)
    assert(type(states) == "table", "fsm.new: table of states expected")
    assert(states[initial], "fsm.new: initial state expected")
    return setmetatable({ states = states, initial = initial }, fsm)
end

function fsm.get(m, name)
    local s = m.states[name]
    if not s then error("fsm: no state named '" .. tostring(name) .. "'", 3) end
    return s
end

-- Enter `name` (default: the initial state) without leaving anything.
function fsm.start(m, self, agent, name)
    name = name or m.initial
    local s = m:get(name)
    self.state, self.state_time = name, 0
    if s.enter then s.enter(self, agent) end
end

-- Leave the current state and enter `name`; re-entering the same state is a no-op.
function fsm.change(m, self, agent, name)
    if self.state == name then return end
    local new = m:get(name)
    local old = m.states[self.state]
    if old and old.exit then old.exit(self, agent) end
    self.previous_state = self.state
    self.state, self.state_time = name, 0
    self.transitions = (self.transitions or 0) + 1
    if new.enter then new.enter(self, agent) end
end

-- Run the current state's update; a returned name switches state.
-- A state that vanished in a reload (renamed, deleted) restarts the machine
-- in its initial state.
function fsm.update(m, self, agent, dt)
    local s = m.states[self.state]
    if not s then
        m:start(self, agent, m.initial)
        s = m.states[self.state]
    end
    self.state_time = (self.state_time or 0) + dt
    local nxt = s.update and s.update(self, agent, dt)
    if nxt then m:change(self, agent, nxt) end
end

-- Whether the machine has a state with this name.
function fsm.has(m, name)
    return m.states[name] ~= nil
end

return fsm
