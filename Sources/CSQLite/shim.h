/* SPDX-License-Identifier: Apache-2.0 */
#pragma once
// The system SQLite (Debian libsqlite3-dev), for ToastStore's connection (Sources/ToastStore/SQLite.swift).
#include <sqlite3.h>
