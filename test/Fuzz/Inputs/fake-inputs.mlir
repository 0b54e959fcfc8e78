// Inputs of test/Fuzz/findings.test, one module per piece: the fake amk-opt
// hangs on the first (too many `hang`s for the edits to remove), crashes on
// the second and rejects the third.
"test.op"() {hang, hang, hang, hang, hang, hang, hang, hang} : () -> ()
// -----
"test.op"() {boom, boom, boom, boom, boom, boom, boom, boom} : () -> ()
// -----
"test.op"() {x = 1 : i32} : () -> ()
