# automation: the ego car's driving automation (ACC, lane centring, level 2 and 3),
# driver override, take-over requests and the minimal-risk manoeuvre, the path follower
# it shares with the scripted driver, and the take-over driver model; pure computation
# (docs/automation.md).
automation_USES := base
automation_PKGS := libcjson
automation_PURE := yes
