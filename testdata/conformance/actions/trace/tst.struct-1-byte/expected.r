                   FUNCTION:NAME
                          :BEGIN   52

-- @@stderr --
dtrace: script 'test/unittest/actions/trace/tst.struct-1-byte.d' matched 1 probe
