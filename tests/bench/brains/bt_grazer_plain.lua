-- bt_grazer_plain.lua — bt_grazer.lua's tree written by hand (if/else and
-- timers in self): the same forces in the same order, so the same checksum.
-- The baseline of the "bt brains" rows (tests/bench/bt.lua --plain).
local A = require("steer").agent
local nearest, steer = A.nearest, A.steer

local THREAT, HUNGRY, FULL, GRAZE, BURN = 40, 50, 100, 40, 8

local brain = {}

function brain.update(self, agent, dt)
    self.clock = (self.clock or 0) + dt
    local threat = nearest(agent, THREAT, "hunter")
    if threat then                          -- evade (interrupts the rest)
        steer(agent, "evade", threat)
        self.mode = nil
        return
    end
    if self.mode == "graze" then            -- a graze in progress
        steer(agent, "wander", 0.2)
        self.energy = self.energy + GRAZE * dt
        if self.energy >= FULL then self.mode = nil end
        return
    end
    if not self.ready or self.clock >= self.ready then -- the cooldown'd hunger check
        self.ready = self.clock + 1
        if self.energy < HUNGRY then
            steer(agent, "wander", 0.2)
            self.energy = self.energy + GRAZE * dt
            self.mode = self.energy < FULL and "graze" or nil
            return
        end
    end
    if self.mode ~= "roam" then self.mode, self.roam = "roam", 0 end
    self.roam = self.roam + dt
    steer(agent, "wander")
    self.energy = self.energy - BURN * dt
    if self.roam >= 2 then self.mode = nil end
end

return brain
