func.func @f() attributes {x = array<index: 1>} {
  return
}
