-- fsm.lua — the state machine scenes and brains have required as "fsm"
-- since 1.0: now steer.fsm (scripts/steer/fsm.lua), which runs flat
-- machines exactly as this module did (self.state, self.state_time,
-- self.previous_state, self.transitions) and adds sub-states, a global
-- state and messages. New scripts: `require "steer.fsm"`.
return require "steer.fsm"
