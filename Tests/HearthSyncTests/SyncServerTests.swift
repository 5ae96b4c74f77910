import HearthSync
import Testing

@Suite struct SyncServerSettingsTests {
  @Test func aServerThatDoesNotAnswerTimesOutInSecondsUnlessTheSettingSaysOtherwise() {
    #expect(
      SyncServer.withConnectTimeout("host=db dbname=hearth")
        == "host=db dbname=hearth connect_timeout=10")
    #expect(
      SyncServer.withConnectTimeout("postgresql://alice@db/hearth")
        == "postgresql://alice@db/hearth?connect_timeout=10")
    #expect(
      SyncServer.withConnectTimeout("postgresql://alice@db/hearth?sslmode=require")
        == "postgresql://alice@db/hearth?sslmode=require&connect_timeout=10")
    #expect(
      SyncServer.withConnectTimeout("host=db connect_timeout=2") == "host=db connect_timeout=2")
  }
}
