import { useState } from 'react';

export default function DeviceSync() {
  const [syncing, setSyncing] = useState(false);
  const [result, setResult] = useState('');

  const sync = async () => {
    setSyncing(true);
    setResult('');
    try {
      const response = await fetch('/api/devices/sync', { method: 'POST' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const data = await response.json();
      setResult(`${data.synced} new activities synced`);
    } catch (err) {
      setResult('Device sync failed');
    } finally {
      setSyncing(false);
    }
  };

  return (
    <div>
      <button onClick={sync} disabled={syncing}>
        {syncing ? 'Syncing...' : 'Sync device'}
      </button>
      {result && <p>{result}</p>}
    </div>
  );
}
