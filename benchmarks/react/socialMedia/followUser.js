import { useState } from 'react';

export default function FollowUser() {
  const [following, setFollowing] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState('');

  const follow = async () => {
    setPending(true);
    setError('');
    try {
      const response = await fetch('/api/users/jdoe/follow', { method: 'POST' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      setFollowing(true);
    } catch (err) {
      setError('Could not follow user');
    } finally {
      setPending(false);
    }
  };

  return (
    <div>
      <h3>@jdoe</h3>
      <button onClick={follow} disabled={pending || following}>
        {following ? 'Following' : 'Follow'}
      </button>
      {error && <p>{error}</p>}
    </div>
  );
}
