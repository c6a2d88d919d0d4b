                   FUNCTION:NAME
                          :BEGIN  65535

-- @@stderr --
dtrace: script 'test/unittest/actions/trace/tst.int16_t.d' matched 1 probe
