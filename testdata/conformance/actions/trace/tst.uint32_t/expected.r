                   FUNCTION:NAME
                          :BEGIN        -1

-- @@stderr --
dtrace: script 'test/unittest/actions/trace/tst.uint32_t.d' matched 1 probe
