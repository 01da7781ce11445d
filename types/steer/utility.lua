---@meta steer.utility
-- luacheck: ignore (declarations only: every body is empty on purpose)
-- LuaLS annotations for `require "steer.utility"` (scripts/steer/utility.lua;
-- docs/API.md, "Decisions"). Nothing here runs.

---@alias steer.utility.curve fun(x: number): number

---@class steer.utility.consideration
---@field input fun(self: table, agent: any): number  a finite number (nan raises)
---@field range number[]?                 { lo, hi }: input mapped to 0..1 (clamped); default 0..1
---@field curve steer.utility.curve?      default: the mapped input itself

---@class steer.utility.option
---@field name string
---@field weight number?                  default 1
---@field considerations steer.utility.consideration[]
---@field run fun(self: table, agent: any, dt: number)?
---@field enter fun(self: table, agent: any)?
---@field exit fun(self: table, agent: any)?

---@class steer.utility.opts
---@field bonus number?   added to the current option's score (default 0)
---@field margin number?  a challenger must beat the current option by more (default 0)
---@field key string?     the field of self for the state (default "utility")

---State in self.utility: current (name), previous, time (seconds in it),
---scores (name -> last score), switches (count).
---@class steer.utility
---@field options steer.utility.option[]
---@field bonus number
---@field margin number
---@field key string
local utility = {}

---Response curves: each returns a function from 0..1 to 0..1.
---@class steer.utility.curves
utility.curve = {}

---@return steer.utility.curve
function utility.curve.linear(m, b) end
---@return steer.utility.curve
function utility.curve.quadratic(k, m, b) end
---@return steer.utility.curve
function utility.curve.logistic(k, x0) end
---@return steer.utility.curve
function utility.curve.step(threshold, low, high) end
---@return steer.utility.curve
function utility.curve.inverse() end
---@return steer.utility.curve
function utility.curve.constant(c) end

---@param options steer.utility.option[]
---@param opts steer.utility.opts?
---@return steer.utility
function utility.new(options, opts) end

---An option's score: weight times the compensated product of its considerations.
---@param o steer.utility.option
---@return number
function utility.score(o, self_, agent) end

---Scores every option and takes the best with hysteresis (exit/enter on a change).
---@return string name, number score
function utility:select(self_, agent) end

---select, then the chosen option's run.
---@return string name
function utility:update(self_, agent, dt) end

return utility
