# sound: the engine and tyre sound synthesizer of sound-node, pure (docs/sound.md).
sound_USES := base
sound_PKGS :=
sound_PURE := yes
