                   FUNCTION:NAME
                          :BEGIN  305419896

-- @@stderr --
dtrace: script 'test/unittest/actions/trace/tst.union.d' matched 1 probe
