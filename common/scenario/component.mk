# scenario: the files that describe a session: scenarios, height-map images, the roads
# they describe (the project's JSON or OpenDRIVE), vehicle parameter files read from
# disk, the scenario's traffic in the traffic core's terms, and a study condition's copy
# of a scenario with its file names made absolute (docs/scenario.md).
scenario_USES := base world vehicle traffic tasks metrics storyboard automation routing gaze scenery study
scenario_PKGS := libcjson libpng libxml-2.0
# headers only scenario itself (and its unit tests) may include
scenario_PRIVATE := sim_scenario_load.h sim_xodr_util.h sim_xml_read.h
