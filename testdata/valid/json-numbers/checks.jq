# the JSON number rules of dt2json(1), on the records of n.json
map(select(.type == "probe")) | .[0] as $p
| $p.timestamp == "18446744073709551615"
and $p.records[0].value == "-9223372036854775808"
and $p.records[1].value == 9007199254740991
and $p.records[2].value == "9007199254740992"
and $p.records[3].value == "-9007199254740992"
and $p.records[4].value == -1
and $p.records[5].value == 255
and $p.records[6].bytes == "00ff10ab7f"
and $p.records[7].message == " 18446744073709551615\n"
and $p.records[7].args[0].value == -1
