-- hunter_bt.lua — the hunter's brain as a behaviour tree (steer.bt): the
-- same hunter as hunter.lua's state machine, plus a short pause to feed
-- after a catch. `steer scripts/hunt.lua -- bt` (every hunter) or `-- mixed`
-- (every other one) runs it.
--
--   selector (reactive: checked from the top every tick)
--     rest:   tired?  -> recover                 (until the tank is full)
--     hunt:   spot prey -> chase -> feed          (chase: until caught or lost;
--                                                  feed: brake for FEED seconds)
--     wander
--
-- The running node's path is self.bt.active (drawn over the hunter). Edit
-- the numbers or an action while the demo runs: a chase in progress carries
-- on with the new code, since its state lives in self.bt under its name.

local steer = require "steer"
local bt = require "steer.bt"
local kit = require "hunt_kit"

local MAX_STAMINA = 100  -- a full tank
local DRAIN = 28  -- stamina per second spent chasing
local RECOVER = 30  -- stamina per second regained while resting
local WANDER_RECOVER = 6  -- ... and while wandering with a half-full tank
local MIN_TO_HUNT = 0.35  -- fraction of MAX_STAMINA needed to start a chase
local SIGHT = 170  -- how far a hunter spots prey
local LOSE = 230  -- a chased prey farther than this is lost
local CATCH_RADIUS = 15  -- prey whose centre comes this close to the hunter's body is caught
local FEED = 0.6  -- seconds a hunter stops to feed after a catch
local REST_DRAG = 1.5  -- a resting hunter brakes: force = -vel * REST_DRAG
local AVOID_WEIGHT = 3  -- obstacles come first
local SEPARATION = 30  -- hunters keep this far apart

local COLOR = {
    wander = { 150, 190, 230 },   -- a pale blue: the state machine's hunters are grey
    pursue = { 255, 150, 0 },     -- orange, as theirs
    feed   = { 240, 210, 80 },    -- gold
    rest   = { 100, 120, 140 },
}

local function clamp(x, lo, hi)
    if x < lo then return lo elseif x > hi then return hi end
    return x
end

local function keep_clear(agent) kit.keep_clear(agent, AVOID_WEIGHT, SEPARATION) end

-- Shows what the hunter does: self.state (the hunt's HUD counts "pursue"
-- and "rest") and the colour.
local function show(self, agent, state)
    self.state = state
    agent.color = COLOR[state]
end

-- rest: brake and refill; success when full.
local function recover(self, agent, dt)
    show(self, agent, "rest")
    keep_clear(agent)
    agent:wander(0.5)
    agent:apply(agent.vel * -REST_DRAG)
    self.stamina = math.min(MAX_STAMINA, self.stamina + RECOVER * dt)
    if self.stamina < MAX_STAMINA then return "running" end
    self.tired = false
    return "success"
end

-- spot: enough stamina, and a prey in sight (the one chased, if any).
local function spot(self, agent)
    if self.stamina < MAX_STAMINA * MIN_TO_HUNT then return false end
    self.target = kit.closest_prey(agent, SIGHT)
    return self.target ~= nil
end

-- chase: success on a catch; failure when the prey is lost (and no other
-- in sight) or the tank runs dry (then the hunter is tired).
local function chase(self, agent, dt)
    show(self, agent, "pursue")
    if kit.try_catch(self, agent, CATCH_RADIUS) then
        self.target = nil
        return "success"
    end
    local target = self.target
    if not target or not target.alive or target.self.caught or not kit.still_in_range(agent, target, LOSE) then
        self.target = kit.closest_prey(agent, SIGHT)
        if not self.target then return "failure" end
        target = self.target
    end
    keep_clear(agent)
    agent:pursue(target)
    self.stamina = self.stamina - DRAIN * dt
    if self.stamina > 0 then return "running" end
    self.stamina, self.tired, self.target = 0, true, nil
    return "failure"
end

local function feed(self, agent)
    show(self, agent, "feed")
    agent:apply(agent.vel * -REST_DRAG)
    return "running"
end

local function wander(self, agent, dt)
    show(self, agent, "wander")
    keep_clear(agent)
    agent:wander()
    if self.stamina < MAX_STAMINA * 0.5 then
        self.stamina = math.min(MAX_STAMINA, self.stamina + WANDER_RECOVER * dt)
    end
    return "running"
end

local tree = bt.selector { name = "hunter", reactive = true,
    bt.sequence { name = "rest", bt.condition(function(self) return self.tired end, "tired"),
                                 bt.action(recover, "recover") },
    bt.sequence { name = "hunt",
        bt.condition(spot, "spot"),
        bt.action(chase, "chase"),
        -- brake while the digest wait runs; done when it is
        bt.parallel { name = "feed", success = "one", bt.wait(FEED, "digest"), bt.action(feed, "brake") },
    },
    bt.action(wander, "wander"),
}

local brain = {}

function brain.spawn(self, agent)
    self.stamina = clamp(self.stamina or MAX_STAMINA, 0, MAX_STAMINA)
    self.catches = self.catches or 0
    agent.combine = "priority"
    show(self, agent, "wander")
end

function brain.update(self, agent, dt)
    -- MAX_STAMINA may have changed in a reload: stay inside the new range
    self.stamina = clamp(self.stamina or MAX_STAMINA, 0, MAX_STAMINA)
    tree:tick(self, agent, dt)
end

function brain.reload(self, agent)
    self.stamina = clamp(self.stamina or MAX_STAMINA, 0, MAX_STAMINA)
    agent.color = COLOR[self.state] or COLOR.wander
end

-- A stamina bar and the running node's name over the hunter, and a faint
-- line to the prey it chases.
function brain.draw(self, agent, gfx)
    local p = agent.pos
    local x0, y = kit.stamina_bar(gfx, agent, clamp((self.stamina or 0) / MAX_STAMINA, 0, 1))
    local active = self.bt and self.bt.active
    if active then
        gfx.text(steer.vec2(x0, y - 16), active:match("[^/]+$"), { 200, 210, 230 })
    end
    local t = self.target
    if self.state == "pursue" and t and t.alive and t.pos:dist(p) < LOSE then
        gfx.line(p, t.pos, { 150, 95, 40 })
    end
end

return brain
