
-- @@stderr --
dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn't set option "Nixon" to "1": Invalid option name

dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn't set option "Harding" to "1": Invalid option name

dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn't set option "Hoover" to "1": Invalid option name

dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn't set option "Bush" to "1": Invalid option name

dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn't set option "quiet" to "um, no": Invalid value for specified option

dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn't set option "aggrate" to "0.5hz": Invalid value for specified option

dtrace: error on enabled probe ID 1 (ID 1: dtrace:::BEGIN): couldn't set option "bufsize" to "1m": Operation illegal when tracing is active

