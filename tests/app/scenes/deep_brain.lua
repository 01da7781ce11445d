-- deep_brain.lua — a brain keeping an instance of a hand-written class in
-- self: Animal (a method table with __index) <- Dog <- Puppy, two levels of
-- inheritance through metatables, plus a mixin copied in. See deep_scene.lua.
-- luacheck: no unused args

local tally = require "deep_tally"

local Animal = {}
Animal.__index = Animal
function Animal.new(cls) return setmetatable({}, cls) end
function Animal:speak() return "speak-v1" end
function Animal:greet() return self:speak() .. "/" .. self:name() end

local Dog = setmetatable({}, { __index = Animal })
Dog.__index = Dog
function Dog:name() return "dog" end

local Puppy = setmetatable({}, { __index = Dog })
Puppy.__index = Puppy
function Puppy:name() return "puppy" end

local Wag = {}
function Wag:wag() return "" end
for k, f in pairs(Wag) do Puppy[k] = f end

local brain = {}

function brain.spawn(self)
    self.pet = Animal.new(self.kind == "puppy" and Puppy or Dog)
end

function brain.update(self, agent)
    self.said = self.pet:greet() .. (self.pet.wag and self.pet:wag() or "")
    tally.add()
    agent:wander()
end

return brain
