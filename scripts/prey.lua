-- prey.lua — the prey's brain (seed 004, plus a loose flock and respawning).
--
-- States:  wander --(hunter near)--> evade --(safe again)--> wander
--          wander --(mouse near, no hunter)--> seek --(mouse gone)--> wander
-- Prey caught by a hunter (self.caught set by the hunter's brain) respawn
-- somewhere safe on their next update.
--
-- Tunables: edit and save while the demo runs.

local steer = require "steer"
local fsm = require "fsm"

local DANGER = 110  -- a hunter closer than this is a threat
local SAFE = 150  -- ... and farther than this no longer is
local MOUSE_RANGE = 200  -- seek the pointer when it is this close
local SLOWING = 30  -- arrive's slowing radius at the pointer (seed 004)
local AVOID_WEIGHT = 3
local FLOCK = { radius = 60, tag = "prey",          -- loose: low weights
                separation = 1.0, alignment = 0.4, cohesion = 0.35 }
local RESPAWN_CLEARANCE = 220  -- respawn at least this far from any hunter
local FLASH_TIME = 0.8  -- seconds a respawned prey shows a ring

local COLOR = {
    wander = { 170, 170, 170 },   -- grey
    seek   = { 80, 220, 100 },    -- green
    evade  = { 235, 60, 50 },     -- red
}

-- The pointer when it is within range, else nil (always nil headless).
local function mouse_near(agent)
    local m = steer.mouse and steer.mouse()
    if m and m:dist(agent.pos) <= MOUSE_RANGE then return m end
end

local function hunters_within(agent, radius)
    return agent.world:neighbors(agent, radius, { tag = "hunter" })
end

-- Whether any hunter is within radius: world:nearest answers that without
-- building the list.
local function hunter_within(agent, radius)
    return agent.world:nearest(agent, radius, "hunter") ~= nil
end

local function keep_clear(agent)
    agent:avoid_obstacles(AVOID_WEIGHT)
end

local machine = fsm.new({
    wander = {
        enter = function(_, agent) agent.color = COLOR.wander end,
        update = function(_, agent)
            if hunter_within(agent, DANGER) then return "evade" end
            if mouse_near(agent) then return "seek" end
            keep_clear(agent)
            agent:flock(FLOCK)
            agent:wander()
        end,
    },

    seek = {
        enter = function(_, agent) agent.color = COLOR.seek end,
        update = function(_, agent)
            if hunter_within(agent, DANGER) then return "evade" end
            local m = mouse_near(agent)
            if not m then return "wander" end
            keep_clear(agent)
            agent:arrive(m, SLOWING)
            agent:flock(FLOCK)
        end,
    },

    evade = {
        enter = function(self, agent)
            agent.color = COLOR.evade
            self.scares = (self.scares or 0) + 1
        end,
        update = function(_, agent)
            local threats = hunters_within(agent, SAFE)
            if #threats == 0 then return "wander" end
            keep_clear(agent)
            for _, h in ipairs(threats) do agent:evade(h, SAFE) end
            agent:flock(FLOCK)
        end,
    },
}, "wander")

-- A random spot away from hunters and outside the obstacles the scene gave us.
local function safe_spot(self, agent)
    local world = agent.world
    local best
    for _ = 1, 30 do
        local p = steer.vec2(world:random() * world.width, world:random() * world.height)
        local clear = true
        for _, o in ipairs(self.obstacles or {}) do
            if p:dist(steer.vec2(o[1], o[2])) < o[3] + 15 then clear = false break end
        end
        if clear then
            best = p
            if not world:nearest(p, RESPAWN_CLEARANCE, "hunter") then break end
        end
    end
    return best or agent.pos
end

local function respawn(self, agent)
    agent.pos = safe_spot(self, agent)
    agent.vel = steer.vec2.from_angle(agent.world:random() * 2 * math.pi, 20)
    self.caught, self.caught_by = false, nil
    self.respawns = (self.respawns or 0) + 1
    self.respawned_at = agent.world.time
    machine:change(self, agent, "wander")
end

local brain = {}

function brain.spawn(self, agent)
    self.caught = false
    agent.combine = "priority"
    machine:start(self, agent)
end

function brain.update(self, agent, dt)
    if self.caught then
        respawn(self, agent)
        return
    end
    machine:update(self, agent, dt)
end

function brain.reload(self, agent)
    if not machine:has(self.state) then machine:start(self, agent) end
    agent.color = COLOR[self.state]
end

-- A ring that shrinks over a freshly respawned prey.
function brain.draw(self, agent, gfx)
    local since = self.respawned_at and agent.world.time - self.respawned_at
    if since and since < FLASH_TIME then
        gfx.circle(agent.pos, 6 + 24 * (1 - since / FLASH_TIME), { 120, 200, 255 })
    end
end

return brain
