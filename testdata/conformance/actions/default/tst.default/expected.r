                   FUNCTION:NAME
                          :BEGIN hello world 1
                          :BEGIN 3
                          :BEGIN 
                          :BEGIN         7
                          :BEGIN 

-- @@stderr --
dtrace: script 'test/unittest/actions/default/tst.default.d' matched 8 probes
