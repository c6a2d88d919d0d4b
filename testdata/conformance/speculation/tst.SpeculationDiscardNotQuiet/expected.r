                   FUNCTION:NAME
                          :BEGIN Speculation ID: 1

                          :BEGIN Successfully tested buffer discard


-- @@stderr --
dtrace: script 'test/unittest/speculation/tst.SpeculationDiscardNotQuiet.d' matched 5 probes
