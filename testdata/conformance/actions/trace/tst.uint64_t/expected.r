                   FUNCTION:NAME
                          :BEGIN                -1

-- @@stderr --
dtrace: script 'test/unittest/actions/trace/tst.uint64_t.d' matched 1 probe
