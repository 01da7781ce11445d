---@meta steer.bt
-- luacheck: ignore (declarations only: every body is empty on purpose)
-- LuaLS annotations for `require "steer.bt"` (scripts/steer/bt.lua; docs/API.md,
-- "Decisions"). Nothing here runs.

---@alias steer.bt.status "success"|"failure"|"running"

---A node of a behaviour tree. Its path (its name, or its kind and place among
---its siblings, under its parents' path) is where its running state lives in
---`self.bt`, so a reload that keeps the path keeps the node running.
---@class steer.bt.node
---@field kind string       "sequence", "selector", "parallel", "invert", "repeat", "cooldown", "timeout", "guard", "action", "condition" or "wait"
---@field name string?      the name given, if any
---@field path string       e.g. "hunter/hunt/chase"; "selector/action#2" for unnamed nodes
---@field id integer        the node's place in its tree (the root is 1)
---@field children steer.bt.node[]
---@field key string?       (root) the field of self holding the state (default "bt")
local node = {}

---One tick of the tree rooted at this node (a node inside a tree cannot be ticked).
---@param self table     the agent's self: state goes to self.bt (self[root.key])
---@param agent any      passed to the leaves (a steer.agent in a brain)
---@param dt number      seconds, finite and >= 0
---@return steer.bt.status
function node:tick(self, agent, dt) end

---The state a tree keeps in self.bt: plain data, snapshots copy it.
---@class steer.bt.state
---@field tick integer    ticks so far
---@field clock number    seconds so far (the sum of dt): cooldowns count in it
---@field active string?  the path of the running leaf (action or wait), nil when none
---@field layout string   the tree's paths in id order, one a line
---@field run table<integer, integer>   per node id: the tick it last returned "running"
---@field time table<integer, number>   per node id: seconds of its current run
---@field mem table<integer, table>     per action id: its run's own table
---@field n table<integer, integer>     per repeat id: runs counted
---@field done table<integer, table>    per parallel id: finished children
---@field ready table<integer, number>  per cooldown id: the clock from which it runs its child again

---@class steer.bt.spec
---@field name string?      a name for the node (no "/" or "#"), unique among its siblings
---@field reactive boolean? tick from the first child on every tick (a higher-priority child can take over)
---@field key string?       as root: the field of self for the state (default "bt")
---@field [integer] steer.bt.node

---@class steer.bt.parallel_spec: steer.bt.spec
---@field success "all"|"one"?  default "all"
---@field failure "one"|"all"?  default "one"; when both policies are met on one tick, failure wins

---@class steer.bt
local bt = {}

---Children in order: fails at the first failure, succeeds when all succeed;
---a running child is resumed on the next tick (reactive: after ticking the earlier ones again).
---@param spec steer.bt.spec
---@return steer.bt.node
function bt.sequence(spec) end

---Children in order until one does not fail: succeeds at the first success, fails when all fail.
---@param spec steer.bt.spec
---@return steer.bt.node
function bt.selector(spec) end

---Ticks every unfinished child each tick; the policies decide when it ends.
---@param spec steer.bt.parallel_spec
---@return steer.bt.node
function bt.parallel(spec) end

---Success becomes failure and failure success.
---@param child steer.bt.node
---@param name string?
---@return steer.bt.node
function bt.invert(child, name) end

---Runs the child to its end `times` times, one run per tick at most (math.huge: for ever); fails when it fails.
---`bt["repeat"]` is the same function (repeat is a Lua keyword).
---@param times integer|number  an integer >= 1, or math.huge
---@param child steer.bt.node
---@param name string?
---@return steer.bt.node
function bt.repeat_(times, child, name) end

---After the child finishes, fails without ticking it for `seconds` of the tree's clock.
---@param seconds number
---@param child steer.bt.node
---@param name string?
---@return steer.bt.node
function bt.cooldown(seconds, child, name) end

---Fails (and restarts the child next time) when the child still runs after `seconds`.
---@param seconds number
---@param child steer.bt.node
---@param name string?
---@return steer.bt.node
function bt.timeout(seconds, child, name) end

---Ticks the child while fn(self, agent) is true, else fails (checked every tick).
---@param fn fun(self: table, agent: any): any
---@param child steer.bt.node
---@param name string?
---@return steer.bt.node
function bt.guard(fn, child, name) end

---A leaf that runs fn; `mem` is the run's own table (emptied when a run starts), `mem.time` its seconds.
---@param fn fun(self: table, agent: any, dt: number, mem: table): steer.bt.status|boolean
---@param name string?
---@return steer.bt.node
function bt.action(fn, name) end

---A leaf: success when fn(self, agent) is true, else failure.
---@param fn fun(self: table, agent: any): any
---@param name string?
---@return steer.bt.node
function bt.condition(fn, name) end

---A leaf: running until `seconds` have passed since it started, then success.
---@param seconds number
---@param name string?
---@return steer.bt.node
function bt.wait(seconds, name) end

return bt
