-- counter.lua — a brain that counts its updates in `self`, so a test can
-- tell from the output that state survived a reload.

local VERSION = 1

local brain = {}

function brain.spawn(self)
    self.n = 0
end

function brain.update(self, agent)
    self.n = self.n + 1
    if self.n % 20 == 0 then
        print(("counter v%d n=%d"):format(VERSION, self.n))
    end
    agent:wander()
end

function brain.reload(self)
    print(("reloaded v%d n=%d"):format(VERSION, self.n))
end

return brain
