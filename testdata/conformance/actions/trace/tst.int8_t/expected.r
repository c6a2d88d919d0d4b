                   FUNCTION:NAME
                          :BEGIN  255

-- @@stderr --
dtrace: script 'test/unittest/actions/trace/tst.int8_t.d' matched 1 probe
