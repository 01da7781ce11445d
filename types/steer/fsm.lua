---@meta steer.fsm
-- luacheck: ignore (declarations only: every body is empty on purpose)
-- LuaLS annotations for `require "steer.fsm"` (scripts/steer/fsm.lua; also
-- `require "fsm"`; docs/API.md, "Decisions"). Nothing here runs.

---A state: every function optional. update and message may return the name of
---a state to change to (message: any true value means handled).
---@class steer.fsm.state
---@field enter fun(self: table, agent: any)?
---@field update fun(self: table, agent: any, dt: number): string?
---@field exit fun(self: table, agent: any)?
---@field message fun(self: table, agent: any, msg: any): any
---@field states table<string, steer.fsm.state>?  sub-states: this state is their parent
---@field initial string?                         with states: the sub-state it starts in

---@class steer.fsm.opts
---@field global steer.fsm.state?  update runs before the current state's; message after theirs

---A machine. It keeps nothing per agent: self.state (the innermost current
---state), self.state_time, self.previous_state, self.transitions.
---@class steer.fsm
---@field states table<string, steer.fsm.state>  every state by name, sub-states included
---@field parent table<string, string|false>     each state's parent (false at the top)
---@field initial string
---@field global steer.fsm.state?
local fsm = {}

---@param states table<string, steer.fsm.state>  names unique in the machine, sub-states included
---@param initial string
---@param opts steer.fsm.opts?
---@return steer.fsm
function fsm.new(states, initial, opts) end

---The state named `name`; raises when there is none.
---@return steer.fsm.state
function fsm:get(name) end

---Enters `name` (default: the initial state) and its initial sub-states, outermost first.
---@param self_ table
---@param name string?
function fsm:start(self_, agent, name) end

---Leaves states up to the one shared with the target, enters down to it (a parent: its initial state).
---@param self_ table
---@param name string
function fsm:change(self_, agent, name) end

---Back to self.previous_state.
---@param self_ table
function fsm:revert(self_, agent) end

---The global state's update, then each state's from the outermost in; the first returned name changes state.
---@param self_ table
---@param dt number
function fsm:update(self_, agent, dt) end

---Offers msg to the current state, its parents outwards, then the global state.
---@param self_ table
---@return boolean handled
function fsm:handle(self_, agent, msg) end

---@param name string
---@return boolean
function fsm:has(name) end

---Whether the current state is `name` or inside it.
---@param self_ table
---@param name string
---@return boolean
function fsm:is_in(self_, name) end

return fsm
