// SPDX-License-Identifier: MIT
// SPDX-FileCopyrightText: rtmb developers
#pragma once

// A server on 127.0.0.1 and its clients, for the loopback tests of rtmb::Server
// (tests/net/server_test.cpp, tests/net/server_haptic_test.cpp) and the allocation tests of its
// simulation thread (tests/alloc/server_alloc_test.cpp, tests/alloc/haptic_session_alloc_test.cpp).

#include <chrono>
#include <functional>
#include <thread>

#include "rtmb/net/client.hpp"
#include "rtmb/net/server.hpp"

namespace rtmb::testing {

/// The pendulum on 127.0.0.1, TCP and UDP ports chosen by the OS.
inline ServerConfig loopback_config() {
  ServerConfig c;
  c.model = "pendulum";
  c.bind_address = "127.0.0.1";
  c.tcp_port = 0;
  c.udp_port = 0;
  return c;
}

/// Polls until pred() holds or the time is up; returns pred().
inline bool eventually(const std::function<bool()>& pred,
                       std::chrono::milliseconds limit = std::chrono::milliseconds(3000)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return pred();
}

/// Connects client to the server's control port on 127.0.0.1 and says hello.
inline ClientSchema connect_and_hello(Client& client, const Server& server) {
  client.connect("127.0.0.1", server.tcp_port());
  return client.hello();
}

/// connect_and_hello(), then subscribes the client's UDP socket to every state.
inline void say_hello_and_subscribe(Client& client, const Server& server) {
  (void)connect_and_hello(client, server);
  client.subscribe(1);
}

/// Sends `count` inputs about 1 ms apart, inputs(i) as the i-th (a container of InputSample),
/// and waits up to 20 ms for a state after each; returns how many states arrived.
template <class Inputs>
int drive_at_1khz(Client& client, int count, Inputs&& inputs) {
  StateMessage m;
  int received = 0;
  for (int i = 0; i < count; ++i) {
    (void)client.send_input(inputs(i));
    if (client.receive_state(m, std::chrono::milliseconds(20))) ++received;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return received;
}

}  // namespace rtmb::testing
