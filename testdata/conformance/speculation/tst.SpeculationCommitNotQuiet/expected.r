                   FUNCTION:NAME
                          :BEGIN Speculation ID: 1

                          :BEGIN Called speculate on id: 1

                          :BEGIN Succesfully tested buffer commit


-- @@stderr --
dtrace: script 'test/unittest/speculation/tst.SpeculationCommitNotQuiet.d' matched 5 probes
