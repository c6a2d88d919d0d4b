                   FUNCTION:NAME
                          :BEGIN   dtrace                           

-- @@stderr --
dtrace: script 'test/unittest/actions/trace/tst.array.d' matched 1 probe
