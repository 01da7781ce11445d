-- hunter.lua — the hunter's brain (seed 004, with catches and obstacles).
--
-- States:  wander --(prey in sight)--> pursue --(stamina gone)--> rest
--          rest --(recovered)--> wander
--          pursue --(prey lost or caught)--> wander, or rest when low
-- Stamina drains while pursuing and refills while resting; a hunter that runs
-- dry gives up and ambles about until it has recovered.
--
-- Edit the numbers below while the demo runs: every function reads them at
-- use, so a save changes all hunters at once and self.stamina is kept.

local fsm = require "fsm"
local kit = require "hunt_kit"

local MAX_STAMINA = 100  -- a full tank
local DRAIN = 28  -- stamina per second spent pursuing
local RECOVER = 30  -- stamina per second regained while resting
local WANDER_RECOVER = 6  -- ... and while wandering with a half-full tank
local MIN_TO_HUNT = 0.35  -- fraction of MAX_STAMINA needed to start a chase
local SIGHT = 170  -- how far a hunter spots prey
local LOSE = 230  -- a chased prey farther than this is lost
local CATCH_RADIUS = 15  -- prey whose centre comes this close to the hunter's body is caught
local REST_DRAG = 1.5  -- a resting hunter brakes: force = -vel * REST_DRAG
local AVOID_WEIGHT = 3  -- obstacles come first
local SEPARATION = 30  -- hunters keep this far apart

local COLOR = {
    wander = { 170, 170, 170 },   -- grey, as in seed 004
    pursue = { 255, 150, 0 },     -- orange
    rest   = { 110, 110, 120 },   -- a tired, darker grey: it wanders too
}

local function clamp(x, lo, hi)
    if x < lo then return lo elseif x > hi then return hi end
    return x
end

local function closest_prey(agent, radius) return kit.closest_prey(agent, radius) end
local function still_in_range(agent, target, radius) return kit.still_in_range(agent, target, radius) end
local function keep_clear(agent) kit.keep_clear(agent, AVOID_WEIGHT, SEPARATION) end
local function try_catch(self, agent) return kit.try_catch(self, agent, CATCH_RADIUS) end

local machine = fsm.new({
    wander = {
        enter = function(_, agent) agent.color = COLOR.wander end,
        update = function(self, agent, dt)
            keep_clear(agent)
            agent:wander()
            if self.stamina < MAX_STAMINA * 0.5 then
                self.stamina = math.min(MAX_STAMINA, self.stamina + WANDER_RECOVER * dt)
            end
            if self.stamina >= MAX_STAMINA * MIN_TO_HUNT then
                local prey = closest_prey(agent, SIGHT)
                if prey then
                    self.target = prey
                    return "pursue"
                end
            end
        end,
    },

    pursue = {
        enter = function(_, agent) agent.color = COLOR.pursue end,
        update = function(self, agent, dt)
            local target = self.target
            -- a chase that ends (a catch, or the prey got away) leaves a
            -- hunter low on stamina resting, else looking for the next one
            local after = self.stamina < MAX_STAMINA * MIN_TO_HUNT and "rest" or "wander"
            if try_catch(self, agent) then return after end
            if not target or not target.alive or target.self.caught
                or not still_in_range(agent, target, LOSE) then
                -- lost it: switch to the closest other prey, or give up
                self.target = closest_prey(agent, SIGHT)
                if not self.target then return after end
                target = self.target
            end
            keep_clear(agent)
            agent:pursue(target)
            self.stamina = self.stamina - DRAIN * dt
            if self.stamina <= 0 then
                self.stamina = 0
                return "rest"
            end
        end,
        exit = function(self) self.target = nil end,
    },

    rest = {
        enter = function(self, agent)
            agent.color = COLOR.rest
            self.rests = (self.rests or 0) + 1
        end,
        update = function(self, agent, dt)
            keep_clear(agent)
            agent:wander(0.5)
            agent:apply(agent.vel * -REST_DRAG)
            self.stamina = math.min(MAX_STAMINA, self.stamina + RECOVER * dt)
            if self.stamina >= MAX_STAMINA then return "wander" end
        end,
    },
}, "wander")

local brain = {}

function brain.spawn(self, agent)
    self.stamina = clamp(self.stamina or MAX_STAMINA, 0, MAX_STAMINA)
    self.catches = self.catches or 0
    agent.combine = "priority"
    machine:start(self, agent)
end

function brain.update(self, agent, dt)
    -- MAX_STAMINA may have changed in a reload: stay inside the new range
    self.stamina = clamp(self.stamina or MAX_STAMINA, 0, MAX_STAMINA)
    machine:update(self, agent, dt)
end

function brain.reload(self, agent)
    self.stamina = clamp(self.stamina or MAX_STAMINA, 0, MAX_STAMINA)
    if not machine:has(self.state) then machine:start(self, agent) end
    agent.color = COLOR[self.state]   -- a colour edited in the reload shows at once
end

-- A stamina bar over the hunter, and a faint line to the prey it chases.
function brain.draw(self, agent, gfx)
    local p = agent.pos
    kit.stamina_bar(gfx, agent, clamp((self.stamina or 0) / MAX_STAMINA, 0, 1))
    local t = self.target
    if self.state == "pursue" and t and t.alive and t.pos:dist(p) < LOSE then
        gfx.line(p, t.pos, { 150, 95, 40 })
    end
end

return brain
