import { useState } from 'react';

export default function CreatePlaylist() {
  const [name, setName] = useState('');
  const [created, setCreated] = useState(null);
  const [error, setError] = useState('');

  const create = async () => {
    setError('');
    setCreated(null);
    try {
      const response = await fetch('/api/playlists', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setCreated(await response.json());
    } catch (err) {
      setError('Could not create playlist');
    }
  };

  return (
    <div>
      <input placeholder="Playlist name" value={name} onChange={(e) => setName(e.target.value)} />
      <button onClick={create}>Create playlist</button>
      {created && <p>{`Created playlist: ${created.name}`}</p>}
      {error && <p>{error}</p>}
    </div>
  );
}
